// render_markdown_report: the report's headline tables in Markdown.
#include "kbx/report/markdown_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "kbx/report/analyze.h"
#include "kbx/report/best_known.h"
#include "kbx/report/iterations.h"
#include "kbx/report/percent.h"
#include "kbx/report/taxonomy.h"

namespace kbx::report {
namespace {

// A table cell: pipes and line breaks would end the cell or the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  }
  return out;
}

std::string times(const std::optional<double>& s) {
  return s ? fmt::format("{:.2f}x", *s) : std::string("-");
}

std::string row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) {
    out += " " + c + " |";
  }
  return out + "\n";
}

std::string table_head(const std::vector<std::string>& cells, std::size_t text_columns = 1) {
  std::string out = row(cells) + "|";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += i < text_columns ? "---|" : "---:|";
  }
  return out + "\n";
}

std::string runs_table(const std::vector<NamedRun>& runs) {
  std::string out =
      "## Runs\n\n" + table_head({"Run", "Device", "Labels", "Submissions", "Tasks", "Call", "Exe",
                                  "Perf", "Speedup (geomean)", "fast_1"},
                                 3);
  for (const auto& r : runs) {
    const Totals& t = r.model.overall;
    std::string labels;
    for (const auto& [k, v] : r.model.labels) {
      labels += fmt::format("{}{}={}", labels.empty() ? "" : " ", k, v);
    }
    out += row({cell(r.name), cell(r.model.device.empty() ? "-" : r.model.device),
                cell(labels.empty() ? "-" : labels), std::to_string(t.total),
                std::to_string(r.model.task_totals.total), percent_text(t.call_pass, t.total),
                percent_text(t.exe_pass, t.total), percent_text(t.perf_pass, t.total),
                t.perf_pass > 0 ? fmt::format("{:.2f}x", t.geomean_speedup) : "-",
                percent_text(t.fast_1_pass, t.total)});
  }
  return out + "\n";
}

std::string heatmap_table(const std::vector<NamedRun>& runs) {
  Analysis a = analyze_runs(runs, {"category", "method"});
  std::set<std::string> categories;
  std::set<std::string> methods;
  for (const auto& g : a.groups) {
    categories.insert(g.key[0]);
    methods.insert(g.key[1]);
  }
  std::vector<std::string> head{"Category"};
  head.insert(head.end(), methods.begin(), methods.end());
  std::string out = "## Exe rate by category and method\n\n" + table_head(head);
  for (const auto& c : categories) {
    std::vector<std::string> cells{cell(c)};
    for (const auto& m : methods) {
      auto g = std::find_if(a.groups.begin(), a.groups.end(), [&](const GroupStats& s) {
        return s.key == std::vector<std::string>{c, m};
      });
      cells.push_back(g == a.groups.end()
                          ? "-"
                          : fmt::format("{} ({}/{})", percent_text(g->exe_pass, g->submissions),
                                        g->exe_pass, g->submissions));
    }
    out += row(cells);
  }
  out += fmt::format("\n{} tasks; unsolved by every run: {}\n\n", a.tasks,
                     a.unsolved.empty() ? std::string("none")
                                        : cell(fmt::format("{}", fmt::join(a.unsolved, ", "))));
  return out;
}

std::string iterations_tables(const std::vector<NamedRun>& runs) {
  auto its = iterations(runs);
  if (its.empty()) {
    return "";
  }
  std::string out = "## Iterations\n\n";
  for (const auto& it : its) {
    out += fmt::format("### {} ({} lineages)\n\n", cell(it.method), it.lineages);
    out += table_head(
        {"Round", "Submissions", "Call", "Exe", "Perf", "Speedup (geomean)", "Solved so far"});
    for (const auto& r : it.rounds) {
      out += row({cell(r.round), std::to_string(r.submissions),
                  percent_text(r.call_pass, r.submissions), percent_text(r.exe_pass, r.submissions),
                  percent_text(r.perf_pass, r.submissions),
                  times(r.geomean_speedup),
                  fmt::format("{}/{} ({})", r.solved_by_round, r.lineages,
                              percent_text(r.solved_by_round, r.lineages))});
    }
    out += fmt::format(
        "\nTransitions: fail→pass {}, pass→fail {}, pass→pass {}, fail→fail {}. Persistently "
        "correct {} (geomean {}), rescued {} (geomean {}), never correct {}.\n\n",
        it.total.fail_to_pass, it.total.pass_to_fail, it.total.pass_to_pass, it.total.fail_to_fail,
        it.persistent.lineages, times(it.persistent.geomean_speedup), it.rescued.lineages,
        times(it.rescued.geomean_speedup), it.never_correct);
  }
  return out;
}

std::string taxonomy_table(const std::vector<NamedRun>& runs) {
  Taxonomy t = failure_taxonomy(runs);
  std::string out = fmt::format("## Failure taxonomy\n\n{} of {} judged submissions failed.\n\n",
                                t.failures, t.submissions);
  if (t.failures == 0) {
    return out;
  }
  out += table_head({"Family", "Kind", "Count", "Share of failures"}, 2);
  for (const auto& e : t.entries) {
    out += row({std::string(to_string(e.family)), cell(e.kind), std::to_string(e.count),
                percent_text(e.count, t.failures)});
  }
  return out + "\n";
}

std::string cross_device_tables(const std::vector<NamedRun>& runs) {
  auto comparisons = compare_devices(runs);
  if (comparisons.empty()) {
    return "";
  }
  std::string out = "## Across devices\n\n" +
                    table_head({"Configuration", "Devices", "Timed on all", "Spread median",
                                "Spread p95", "Spread max", "Verdict changes"},
                               2);
  for (const auto& dc : comparisons) {
    const Comparison& c = dc.comparison;
    std::optional<double> most;
    for (const auto& r : c.rows) {
      if (r.spread && (!most || *r.spread > *most)) {
        most = r.spread;
      }
    }
    std::set<std::string> devices(c.devices.begin(), c.devices.end());
    out += row({cell(dc.labels), cell(fmt::format("{}", fmt::join(devices, ", "))),
                std::to_string(c.timed_in_all), times(c.median_spread), times(c.p95_spread),
                times(most), std::to_string(c.verdict_changes)});
  }
  return out + "\n";
}

// CUDA-graph mode (runs with --graph): per run, the graph figures beside the eager ones.
std::string graph_table(const std::vector<NamedRun>& runs) {
  bool any = std::any_of(runs.begin(), runs.end(),
                         [](const NamedRun& r) { return r.model.graph_mode; });
  if (!any) {
    return "";
  }
  std::string out =
      "## CUDA graphs\n\nLaunch-bound workloads replayed as CUDA graphs on both sides (kbx eval "
      "--graph); beside the eager speedup, never part of it.\n\n" +
      table_head({"Run", "Submissions", "Tasks", "Workloads", "Graph speedup (geomean)",
                  "Eager speedup (same)", "Capture failed"});
  for (const auto& r : runs) {
    if (!r.model.graph_mode) {
      continue;
    }
    const Totals::Graph& g = r.model.overall.graph;
    auto geo = [&](double v) { return g.timed > 0 ? fmt::format("{:.2f}x", v) : std::string("-"); };
    out += row({cell(r.name), std::to_string(g.timed), std::to_string(g.tasks),
                std::to_string(g.workloads), geo(g.geomean_speedup),
                geo(g.eager_geomean_speedup), std::to_string(g.failed_workloads)});
  }
  return out + "\n";
}

std::string best_known_table(const std::vector<NamedRun>& runs, const NamedRun& best) {
  BestKnown b = best_known(best, runs);
  std::vector<std::string> head{"Task", "Best known"};
  for (const auto& r : b.runs) {
    head.push_back(cell(r));
  }
  std::string out =
      fmt::format("## Best known (expert kernels: {})\n\n", cell(b.source)) + table_head(head);
  auto text = [](const TaskSpeedup& t) {
    return t.speedup ? fmt::format("{:.2f}x", *t.speedup) : (t.outcome.empty() ? "-" : t.outcome);
  };
  for (const auto& r : b.rows) {
    std::vector<std::string> cells{cell(r.task), text(r.best)};
    for (const auto& t : r.runs) {
      cells.push_back(text(t));
    }
    out += row(cells);
  }
  return out + "\n";
}

}  // namespace

std::string render_markdown_report(const std::vector<NamedRun>& runs, const std::string& generator,
                                   const HtmlOptions& options) {
  std::string out = "# kbx report\n\n";
  out += runs_table(runs) + heatmap_table(runs) + iterations_tables(runs) + taxonomy_table(runs) +
         cross_device_tables(runs) + graph_table(runs);
  if (options.best_known != nullptr) {
    out += best_known_table(runs, *options.best_known);
  }
  return out + fmt::format("Made by {} from the runs' kbx.db (docs/analysis.md).\n", generator);
}

}  // namespace kbx::report
