// render_html_report: kbx report's page, built from report models only (inline CSS, JS and SVG).
#include "kbx/report/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "kbx/report/best_known.h"
#include "kbx/report/csv.h"
#include "kbx/report/html_analysis.h"
#include "kbx/report/html_parts.h"
#include "kbx/report/percent.h"

namespace kbx::report {
namespace {

constexpr std::size_t max_detail_chars = 300;
constexpr std::size_t max_tasks_per_reason = 8;

// ---- text --------------------------------------------------------------------------------

using html::escape;

std::string clip(const std::string& text, std::size_t max_chars) {
  return text.size() <= max_chars ? text : text.substr(0, max_chars - 3) + "...";
}

std::string times(double speedup) { return fmt::format("{:.2f}x", speedup); }

std::string verdict_name(stats::SpeedupVerdict v) { return std::string(stats::to_string(v)); }

// ---- page frame --------------------------------------------------------------------------

constexpr const char* style = R"css(
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de;
        --bg: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #1f2328; background: #fff; }
header, section, footer { max-width: 1200px; margin: 0 auto; padding: 12px 24px; }
header { border-bottom: 1px solid var(--line); }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 20px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.muted, .note { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 260px;
        background: var(--bg); }
.card h3 { margin-top: 0; word-break: break-all; }
.card table td:first-child { color: var(--muted); padding-right: 16px; }
table { border-collapse: collapse; }
table.grid { width: 100%; font-variant-numeric: tabular-nums; }
table.grid th, table.grid td { border-bottom: 1px solid var(--line); padding: 4px 8px;
                               text-align: left; vertical-align: top; }
table.grid th { background: var(--bg); position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th[aria-sort=ascending]::after { content: " \25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \25BC"; }
a.csv { font-size: 11px; border: 1px solid var(--line); border-radius: 4px; padding: 0 5px;
        text-decoration: none; color: var(--accent); }
svg.plot { display: block; margin: 6px 0 10px; max-width: 100%; height: auto; }
svg .cell.empty { fill: var(--bg); stroke: var(--line); } svg text.in { fill: #1f2328; }
svg .dot { fill: var(--accent); fill-opacity: 0.6; } svg .median { stroke: #1f2328; stroke-width: 2; }
svg .exe { fill: var(--ok); fill-opacity: 0.75; } svg .solved { fill: var(--accent); }
svg .spread { fill: var(--warn); } svg .family { fill: var(--bad); fill-opacity: 0.75; }
table.grid + table.grid { margin-top: 14px; }
details.diag { border-bottom: 1px solid var(--line); padding: 2px 0; }
details.diag:target { background: #fff8c5; }
details.diag td { font-size: 12px; word-break: break-word; }
td.num { text-align: right; }
td.rate, td.num { white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.bar { display: inline-block; height: 8px; background: var(--ok); border-radius: 2px;
       vertical-align: middle; margin-right: 6px; }
.bar.track { background: var(--line); width: 80px; position: relative; }
.bar.track > .bar { position: absolute; left: 0; top: 0; margin: 0; }
.o-ok { color: var(--ok); font-weight: 600; }
.o-bad { color: var(--bad); } .o-pending { color: var(--muted); }
.v-faster { color: var(--ok); } .v-slower { color: var(--bad); } .v-ambiguous { color: var(--warn); }
.suspect { color: var(--warn); font-weight: 600; }
svg .faster { fill: var(--ok); stroke: var(--ok); } svg .slower { fill: var(--bad); stroke: var(--bad); }
svg .same { fill: var(--accent); stroke: var(--accent); }
svg .ambiguous { fill: var(--warn); stroke: var(--warn); }
svg .axis { stroke: var(--line); } svg .one { stroke: #1f2328; stroke-dasharray: 4 3; }
svg text { font-size: 11px; fill: var(--muted); }
input[type=search] { padding: 4px 8px; width: 280px; border: 1px solid var(--line); border-radius: 6px; }
#kbx-script-status { font-size: 11px; }
)css";

// The table's sort, filter and row count; marks #kbx-script-status when done.
constexpr const char* script = R"js(
(function () {
  var status = document.getElementById('kbx-script-status');
  try {
    function key(cell) {
      var v = cell.getAttribute('data-sort');
      return v === null ? cell.textContent.trim() : v;
    }
    function compare(a, b) {
      if (a === b) return 0;
      if (a === '') return 1;
      if (b === '') return -1;
      var x = parseFloat(a), y = parseFloat(b);
      if (!isNaN(x) && !isNaN(y) && String(x) === a && String(y) === b) return x - y;
      return a < b ? -1 : 1;
    }
    function sortable(table) {
      var body = table.tBodies[0];
      var headers = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(headers, function (th, index) {
        th.addEventListener('click', function () {
          var ascending = th.getAttribute('aria-sort') !== 'ascending';
          for (var i = 0; i < headers.length; i++) headers[i].removeAttribute('aria-sort');
          th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
          var rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (r, s) {
            var c = compare(key(r.cells[index]), key(s.cells[index]));
            return ascending ? c : -c;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
    }
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), sortable);
    var table = document.getElementById('task-table');
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var count = document.getElementById('task-count');
    function showCount() {
      var shown = rows.filter(function (r) { return !r.hidden; }).length;
      count.textContent = shown + ' of ' + rows.length + ' tasks shown';
    }
    document.getElementById('task-filter').addEventListener('input', function (e) {
      var text = e.target.value.toLowerCase();
      rows.forEach(function (r) { r.hidden = text !== '' && r.textContent.toLowerCase().indexOf(text) < 0; });
      showCount();
    });
    function openTarget() {
      var id = decodeURIComponent(location.hash.slice(1));
      var target = id ? document.getElementById(id) : null;
      if (target && target.tagName === 'DETAILS') target.open = true;
    }
    window.addEventListener('hashchange', openTarget);
    openTarget();
    showCount();
    status.setAttribute('data-status', 'ok');
    status.textContent = 'interactive';
  } catch (err) {
    status.setAttribute('data-status', 'error: ' + err.message);
    status.textContent = 'script error: ' + err.message;
  }
})();
)js";

std::string run_names(const std::vector<NamedRun>& runs) {
  std::string out;
  for (const NamedRun& r : runs) {
    out += (out.empty() ? "" : ", ") + r.name;
  }
  return out;
}

std::string page_head(const std::vector<NamedRun>& runs) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>kbx report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
      escape(run_names(runs)), style);
}

std::string labels_text(const ReportModel& m) {
  std::string out;
  for (const auto& [key, value] : m.labels) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value);
  }
  return out;
}

std::string page_header(const std::vector<NamedRun>& runs) {
  std::string out = "<header>\n<h1>kbx report</h1>\n";
  out += fmt::format("<p class=\"muted\">{} run{}: {}</p>\n", runs.size(),
                     runs.size() == 1 ? "" : "s", escape(run_names(runs)));
  return out + "</header>\n";
}

// ---- summary -----------------------------------------------------------------------------

std::string card_line(const std::string& label, const std::string& value) {
  return fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", label, value);
}

std::string pass_text(int pass, int total) {
  return fmt::format("{} / {} ({})", pass, total, percent_text(pass, total));
}

std::string summary_card(const NamedRun& run) {
  const ReportModel& m = run.model;
  const Totals& t = m.overall;
  const Totals& tasks = m.task_totals;
  std::string out = fmt::format("<div class=\"card\" data-run=\"{}\">\n<h3>{}</h3>\n<table>\n",
                                escape(run.name), escape(run.name));
  out += card_line("Submissions", std::to_string(t.total));
  out += card_line("Tasks", std::to_string(tasks.total));
  out += card_line("Call", pass_text(t.call_pass, t.total));
  out += card_line("Exe", pass_text(t.exe_pass, t.total));
  out += card_line("Perf", pass_text(t.perf_pass, t.total));
  out += card_line("Exe per task", fmt::format("<span class=\"exe-rate-tasks\">{}</span>",
                                               percent_text(tasks.exe_pass, tasks.total)));
  out += card_line("Speedup (geomean)", t.perf_pass > 0 ? times(t.geomean_speedup) : "-");
  out += card_line("Verdicts",
                   fmt::format("faster {}, same {}, slower {}, ambiguous {}", t.verdicts.faster,
                               t.verdicts.same, t.verdicts.slower, t.verdicts.ambiguous));
  out += card_line("fast_1", percent_text(t.fast_1_pass, t.total));
  if (m.has_compile_baseline()) {
    const Totals::Baseline& c = t.vs_compile;
    out += card_line("vs torch.compile",
                     fmt::format("geomean {}; faster {}, same {}, slower {}, ambiguous {}; "
                                 "fast_1 {}",
                                 c.timed > 0 ? times(c.geomean_speedup) : "-", c.verdicts.faster,
                                 c.verdicts.same, c.verdicts.slower, c.verdicts.ambiguous,
                                 percent_text(c.fast_1_pass, t.total)));
  }
  if (m.graph_mode) {
    const Totals::Graph& g = t.graph;
    out += card_line(
        "CUDA graphs",
        g.timed > 0
            ? fmt::format("<span title=\"launch-bound workloads (eager median under the "
                          "threshold) replayed as CUDA graphs on both sides; beside the eager "
                          "speedup, never part of it (docs/metrics.md, CUDA-graph mode)\">geomean "
                          "{} over {} submission{} ({} workload{}); eager {} on the same</span>{}",
                          times(g.geomean_speedup), g.timed, g.timed == 1 ? "" : "s",
                          g.workloads, g.workloads == 1 ? "" : "s",
                          times(g.eager_geomean_speedup),
                          g.failed_workloads > 0
                              ? fmt::format("; capture failed on {} workload{}",
                                            g.failed_workloads,
                                            g.failed_workloads == 1 ? "" : "s")
                              : "")
            : std::string("no workload replayed as a graph on both sides"));
  }
  if (SamplingCounts c = count_sampling(m); c.timed > 0) {
    out += card_line(
        "Sampling",
        fmt::format("<span title=\"workloads whose median's 95% interval is within {:.0f}% "
                    "(docs/metrics.md, Adaptive sampling)\">{} of {} within {:.0f}%</span>{}{}",
                    stats::kMedianCiTarget * 100, c.met, c.timed, stats::kMedianCiTarget * 100,
                    c.brackets > 0 ? fmt::format(", {} by brackets", c.brackets) : "",
                    c.at_budget() > 0 ? fmt::format(", {} at the budget", c.at_budget()) : ""));
  }
  if (m.perf_scale != 1) {
    out += card_line("Perf scale",
                     fmt::format("{:g} of the workloads' bytes (not comparable with full-size "
                                 "runs)",
                                 m.perf_scale));
  }
  out += card_line("Device", escape(m.device.empty() ? "-" : m.device));
  std::string labels = labels_text(m);
  out += card_line("Labels", escape(labels.empty() ? "-" : labels));
  return out + "</table>\n</div>\n";
}

std::string summary_section(const std::vector<NamedRun>& runs) {
  std::string out = "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n";
  for (const NamedRun& r : runs) {
    out += summary_card(r);
  }
  return out + "</div>\n</section>\n";
}

// ---- categories --------------------------------------------------------------------------

const Totals* find_category(const ReportModel& m, const std::string& name) {
  for (const auto& [n, t] : m.categories) {
    if (n == name) {
      return &t;
    }
  }
  return nullptr;
}

std::string rate_bar(int pass, int total) {
  int width = total > 0 ? static_cast<int>(std::lround(80.0 * pass / total)) : 0;
  return fmt::format(
      "<span class=\"bar track\"><span class=\"bar\" style=\"width:{}px\"></span></span>", width);
}

std::string category_cells(const Totals* t) {
  if (t == nullptr) {
    return "<td>-</td><td>-</td><td>-</td>";
  }
  return fmt::format(
      "<td class=\"num\">{}</td><td class=\"rate\">{}{} / {} ({})</td><td class=\"num\">{}</td>",
      pass_text(t->call_pass, t->total), rate_bar(t->exe_pass, t->total), t->exe_pass, t->total,
      percent_text(t->exe_pass, t->total), t->perf_pass > 0 ? times(t->geomean_speedup) : "-");
}

std::string run_prefix(const std::vector<NamedRun>& runs, const NamedRun& r) {
  return runs.size() == 1 ? "" : escape(r.name) + ": ";
}

std::string category_section(const std::vector<NamedRun>& runs) {
  std::set<std::string> names;
  for (const NamedRun& r : runs) {
    for (const auto& [name, totals] : r.model.categories) {
      names.insert(name);
    }
  }
  std::string out = "<section id=\"categories\">\n<h2>Pass rates by category</h2>\n";
  out += "<div class=\"scroll\"><table class=\"grid\">\n<thead><tr><th>Category</th>";
  for (const NamedRun& r : runs) {
    std::string p = run_prefix(runs, r);
    out += fmt::format("<th>{0}Call</th><th>{0}Exe</th><th>{0}Speedup</th>", p);
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const std::string& name : names) {
    out += fmt::format("<tr data-category=\"{0}\"><td>{0}</td>", escape(name));
    for (const NamedRun& r : runs) {
      out += category_cells(find_category(r.model, name));
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n</section>\n";
}

// ---- speedups ----------------------------------------------------------------------------

struct Plot {
  double width = 760;
  double height = 260;
  double left = 52;
  double right = 12;
  double top = 12;
  double bottom = 28;
  double log_low = -1;  // log2 of the lowest speedup shown
  double log_high = 1;

  [[nodiscard]] double y(double speedup) const {
    double f = (std::log2(speedup) - log_low) / (log_high - log_low);
    return top + (1 - f) * (height - top - bottom);
  }

  [[nodiscard]] double x(std::size_t i, std::size_t n) const {
    return left + (static_cast<double>(i) + 0.5) * (width - left - right) / static_cast<double>(n);
  }
};

std::vector<const SubmissionRow*> timed_rows(const ReportModel& m) {
  std::vector<const SubmissionRow*> out;
  for (std::size_t i : m.task_rows) {
    if (m.rows[i].perf_ok && m.rows[i].speedup > 0) {
      out.push_back(&m.rows[i]);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const SubmissionRow* a, const SubmissionRow* b) { return a->speedup < b->speedup; });
  return out;
}

Plot plot_for(const std::vector<const SubmissionRow*>& rows) {
  double low = 0.5;
  double high = 2;
  for (const SubmissionRow* r : rows) {
    low = std::min({low, r->speedup, r->speedup_ci ? r->speedup_ci->low : low});
    high = std::max({high, r->speedup, r->speedup_ci ? r->speedup_ci->high : high});
  }
  Plot p;
  p.log_low = std::floor(std::log2(std::max(low, 1e-6)));
  p.log_high = std::ceil(std::log2(high));
  return p;
}

std::string plot_axes(const Plot& p) {
  std::string out;
  for (double e = p.log_low; e <= p.log_high; e += 1) {
    double s = std::exp2(e);
    out += fmt::format(
        "<line class=\"{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}x</text>\n",
        e == 0 ? "one" : "axis", p.left, p.width - p.right, p.y(s), p.y(s), p.left - 6, p.y(s) + 4,
        s >= 1 ? fmt::format("{:g}", s) : fmt::format("1/{:g}", 1 / s));
  }
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">timed tasks, slowest to fastest"
      "</text>\n",
      (p.left + p.width - p.right) / 2, p.height - 8);
  return out;
}

std::string plot_point(const Plot& p, const SubmissionRow& r, std::size_t i, std::size_t n) {
  std::string verdict = verdict_name(r.speedup_verdict);
  std::string interval =
      r.speedup_ci ? fmt::format(" [{:.3f}, {:.3f}]", r.speedup_ci->low, r.speedup_ci->high)
                   : " (no interval)";
  std::string out = fmt::format("<g class=\"{}\"><title>{}: {:.3f}x{} {}</title>", verdict,
                                escape(r.file), r.speedup, interval, verdict);
  double x = p.x(i, n);
  if (r.speedup_ci) {
    out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>", x,
                       p.y(r.speedup_ci->low), p.y(r.speedup_ci->high));
  }
  out += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"/></g>\n", x,
                     p.y(r.speedup));
  return out;
}

std::string speedup_plot(const NamedRun& run) {
  auto rows = timed_rows(run.model);
  if (rows.empty()) {
    return fmt::format(
        "<p class=\"note\" data-run=\"{}\">No timed tasks in this run (perf runs only on CUDA, "
        "only for correct submissions).</p>\n",
        escape(run.name));
  }
  Plot p = plot_for(rows);
  std::string out = fmt::format(
      "<svg data-run=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"speedups of {} timed tasks\">\n",
      escape(run.name), p.width, p.height, p.width, p.height, rows.size());
  out += plot_axes(p);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += plot_point(p, *rows[i], i, rows.size());
  }
  return out + "</svg>\n";
}

std::string speedup_csv_link(const NamedRun& run) {
  auto rows = timed_rows(run.model);
  if (rows.empty()) {
    return "";
  }
  std::string csv = "task,speedup,ci_low,ci_high,verdict\n";
  for (const SubmissionRow* r : rows) {
    csv += fmt::format("{},{:.6g},{},{},{}\n", csv_field(r->file), r->speedup,
                       r->speedup_ci ? fmt::format("{:.6g}", r->speedup_ci->low) : "",
                       r->speedup_ci ? fmt::format("{:.6g}", r->speedup_ci->high) : "",
                       verdict_name(r->speedup_verdict));
  }
  return fmt::format("<p>{}</p>\n", html::csv_link("speedups.csv", csv));
}

std::string speedup_section(const std::vector<NamedRun>& runs) {
  std::string out = fmt::format(
      "<section id=\"speedups\">\n<h2>Speedups with 95% intervals</h2>\n<p class=\"muted\">"
      "Each timed task's speedup over PyTorch eager (log scale) with its bootstrap interval; "
      "colour by verdict: <span class=\"v-faster\">faster</span>, same (within {:.0f}%), "
      "<span class=\"v-slower\">slower</span>, <span class=\"v-ambiguous\">ambiguous</span>."
      "</p>\n",
      stats::same_speed_margin * 100);
  for (const NamedRun& r : runs) {
    if (runs.size() > 1) {
      out += fmt::format("<h3>{}</h3>\n", escape(r.name));
    }
    out += speedup_plot(r) + speedup_csv_link(r);
  }
  return out + "</section>\n";
}

// ---- tasks -------------------------------------------------------------------------------

const SubmissionRow* kept_row(const ReportModel& m, const std::string& file) {
  for (std::size_t i : m.task_rows) {
    if (m.rows[i].file == file) {
      return &m.rows[i];
    }
  }
  return nullptr;
}

std::string outcome_class(const SubmissionRow& r) {
  if (r.outcome == "ok") {
    return "o-ok";
  }
  return r.outcome == "pending" ? "o-pending" : "o-bad";
}

std::string task_cells(const SubmissionRow* r) {
  if (r == nullptr) {
    return "<td data-sort=\"\">-</td><td data-sort=\"\"></td><td data-sort=\"\"></td>"
           "<td data-sort=\"\"></td>";
  }
  std::string why = r->reason.empty() ? r->detail : r->reason + ": " + r->detail;
  std::string out = fmt::format("<td class=\"{}\" title=\"{}\">{}</td>", outcome_class(*r),
                                escape(clip(why, max_detail_chars)), escape(r->outcome));
  if (!r->perf_ok) {
    return out +
           "<td data-sort=\"\" class=\"num\">-</td><td data-sort=\"\">-</td>"
           "<td data-sort=\"\">-</td>";
  }
  out += fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", r->speedup, times(r->speedup));
  out += r->speedup_ci ? fmt::format("<td data-sort=\"{}\">{:.2f} - {:.2f}</td>",
                                     r->speedup_ci->low, r->speedup_ci->low, r->speedup_ci->high)
                       : std::string("<td data-sort=\"\">-</td>");
  std::string verdict = verdict_name(r->speedup_verdict);
  return out + fmt::format("<td class=\"v-{0}\">{0}</td>", verdict);
}

/// The speedup against torch.compile with its interval and verdict in one cell (runs with the
/// compile baseline); the note says why a timed row has none.
std::string compile_cell(const SubmissionRow* r) {
  if (r == nullptr || !r->vs_compile) {
    std::string why = r != nullptr ? r->compile_note : "";
    return fmt::format("<td class=\"num\" data-sort=\"\" title=\"{}\">-</td>",
                       escape(clip(why, max_detail_chars)));
  }
  const BaselineSpeedup& b = *r->vs_compile;
  std::string interval =
      b.speedup_ci ? fmt::format(" [{:.2f} - {:.2f}]", b.speedup_ci->low, b.speedup_ci->high) : "";
  std::string verdict = verdict_name(b.speedup_verdict);
  return fmt::format("<td class=\"num v-{}\" data-sort=\"{}\" title=\"{}\">{}{}</td>", verdict,
                     b.speedup, verdict, times(b.speedup), interval);
}

/// The speedup in CUDA-graph mode (runs with --graph): over the workloads both sides replayed;
/// "-" where none was (above the threshold, or a capture failed).
std::string graph_cell(const SubmissionRow* r) {
  if (r == nullptr || !r->graph_speedup) {
    return "<td class=\"num\" data-sort=\"\">-</td>";
  }
  return fmt::format("<td class=\"num\" data-sort=\"{}\" title=\"over {} workload{} replayed "
                     "as CUDA graphs on both sides\">{}</td>",
                     *r->graph_speedup, r->graph_workloads, r->graph_workloads == 1 ? "" : "s",
                     times(*r->graph_speedup));
}

/// True when the run carries the device ceilings `kbx calibrate` measured (the table then has a
/// utilisation column for it).
bool has_ceilings(const NamedRun& run) {
  return run.model.ceilings.is_object() && run.model.ceilings.contains("copy_gbs");
}

std::string task_header(const std::vector<NamedRun>& runs, const NamedRun* best) {
  std::string out = "<thead><tr><th>Task</th><th>Category</th>";
  if (best != nullptr) {
    out += "<th title=\"the speedup of kbx's expert kernel (--best-known)\">Best known</th>";
  }
  for (const NamedRun& r : runs) {
    std::string p = run_prefix(runs, r);
    out += fmt::format(
        "<th>{0}Outcome</th><th>{0}Speedup</th><th>{0}95% interval</th>"
        "<th>{0}Verdict</th>",
        p);
    if (r.model.has_compile_baseline()) {
      out += fmt::format(
          "<th title=\"speedup over torch.compile of the reference (default mode, static "
          "shapes, compile time excluded) with its 95% interval; the colour is its "
          "verdict\">{}vs compile</th>",
          p);
    }
    if (r.model.graph_mode) {
      out += fmt::format(
          "<th title=\"speedup with both sides' launch-bound workloads replayed as CUDA graphs "
          "(kbx eval --graph); beside the eager speedup, never part of it\">{}Graph "
          "speedup</th>",
          p);
    }
    if (has_ceilings(r)) {
      out += fmt::format(
          "<th title=\"achieved GB/s as a share of the copy bandwidth, and TFLOP/s as a share "
          "of the matmul peak for the workload's dtype, both measured by kbx calibrate on this "
          "device; over 100% is suspect (a byte or FLOP model, or skipped work)\">{}% of "
          "ceiling</th>",
          p);
    }
  }
  return out + "</tr></thead>\n";
}

/// "62% bw, 14% mm" from the row's utilisation against the measured ceilings; sorted by the
/// larger share; over 100% marked suspect.
std::string utilisation_cell(const SubmissionRow* r) {
  if (r == nullptr || !r->perf_ok ||
      (!r->bandwidth_utilisation && !r->compute_utilisation)) {
    return "<td class=\"num\" data-sort=\"\">-</td>";
  }
  std::vector<std::string> parts;
  double top = 0;
  if (r->bandwidth_utilisation) {
    parts.push_back(fmt::format("{:.0f}% bw", 100 * *r->bandwidth_utilisation));
    top = std::max(top, *r->bandwidth_utilisation);
  }
  if (r->compute_utilisation) {
    parts.push_back(fmt::format("{:.0f}% mm", 100 * *r->compute_utilisation));
    top = std::max(top, *r->compute_utilisation);
  }
  std::string text = fmt::format("{}", fmt::join(parts, ", "));
  if (r->utilisation_suspect) {
    return fmt::format("<td class=\"num suspect\" data-sort=\"{}\" title=\"over 100% of a "
                       "measured ceiling: suspect\">{} !</td>",
                       top, text);
  }
  return fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", top, text);
}

std::string best_known_cell(const NamedRun& best, const std::string& file) {
  TaskSpeedup t = task_speedup(best.model, file);
  if (t.speedup) {
    return fmt::format("<td class=\"num best\" data-sort=\"{}\">{}</td>", *t.speedup,
                       times(*t.speedup));
  }
  return fmt::format("<td class=\"num best\" data-sort=\"\">{}</td>",
                     escape(t.outcome.empty() ? "-" : t.outcome));
}

std::string task_section(const std::vector<NamedRun>& runs, const NamedRun* best) {
  std::map<std::string, std::string> category_of;  // every task of any run, sorted by key
  for (const NamedRun& r : runs) {
    for (std::size_t i : r.model.task_rows) {
      category_of.emplace(r.model.rows[i].file, r.model.rows[i].category);
    }
  }
  std::string out =
      "<section id=\"tasks\">\n<h2>Tasks</h2>\n<p class=\"muted\">One line per task "
      "(the submission metrics.json keeps for it); click a column to sort. "
      "<input type=\"search\" id=\"task-filter\" placeholder=\"filter\"> "
      "<span id=\"task-count\"></span></p>\n";
  out += "<div class=\"scroll\"><table class=\"grid sortable\" id=\"task-table\">\n" +
         task_header(runs, best) + "<tbody>\n";
  for (const auto& [file, category] : category_of) {
    out += fmt::format("<tr data-task=\"{0}\"><td><a href=\"#{2}\">{0}</a></td><td>{1}</td>",
                       escape(file), escape(category), html::task_anchor(file));
    if (best != nullptr) {
      out += best_known_cell(*best, file);
    }
    for (const NamedRun& r : runs) {
      const SubmissionRow* row = kept_row(r.model, file);
      out += task_cells(row);
      if (r.model.has_compile_baseline()) {
        out += compile_cell(row);
      }
      if (r.model.graph_mode) {
        out += graph_cell(row);
      }
      if (has_ceilings(r)) {
        out += utilisation_cell(row);
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n</section>\n";
}

// ---- failures ----------------------------------------------------------------------------

struct ReasonGroup {
  int count = 0;
  std::vector<std::string> tasks;
  std::string example;  ///< the first one's detail
};

std::map<std::pair<std::string, std::string>, ReasonGroup> failure_groups(const ReportModel& m) {
  std::map<std::pair<std::string, std::string>, ReasonGroup> groups;
  for (const SubmissionRow& r : m.rows) {
    if (r.exe_ok) {
      continue;
    }
    ReasonGroup& g = groups[{r.outcome, r.reason}];
    g.count += 1;
    if (g.tasks.size() < max_tasks_per_reason) {
      g.tasks.push_back(r.file);
    }
    if (g.example.empty()) {
      g.example = r.detail;
    }
  }
  return groups;
}

std::string failure_table(const NamedRun& run) {
  auto groups = failure_groups(run.model);
  if (groups.empty()) {
    return "<p class=\"note\">Every submission is correct.</p>\n";
  }
  std::vector<std::pair<std::pair<std::string, std::string>, ReasonGroup>> sorted(groups.begin(),
                                                                                  groups.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::string out = fmt::format(
      "<table class=\"grid failures\" data-run=\"{}\">\n<thead><tr>"
      "<th>Outcome</th><th>Reason</th><th>Submissions</th><th>Tasks</th>"
      "<th>First detail</th></tr></thead>\n<tbody>\n",
      escape(run.name));
  for (const auto& [key, g] : sorted) {
    std::string tasks;
    for (const auto& t : g.tasks) {
      tasks += (tasks.empty() ? "" : ", ") + escape(t);
    }
    out += fmt::format(
        "<tr><td class=\"o-bad\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}{}</td>"
        "<td class=\"muted\">{}</td></tr>\n",
        escape(key.first), escape(key.second.empty() ? "-" : key.second), g.count, tasks,
        g.count > static_cast<int>(g.tasks.size()) ? ", ..." : "",
        escape(clip(g.example, max_detail_chars)));
  }
  return out + "</tbody>\n</table>\n";
}

std::string failure_section(const std::vector<NamedRun>& runs) {
  std::string out = "<section id=\"failures\">\n<h2>Failure reasons</h2>\n";
  for (const NamedRun& r : runs) {
    if (runs.size() > 1) {
      out += fmt::format("<h3>{}</h3>\n", escape(r.name));
    }
    out += failure_table(r);
  }
  return out + "</section>\n";
}

std::string page_footer(const std::string& generator) {
  return fmt::format(
      "<footer class=\"muted\">Made by {} from the runs' kbx.db; docs/metrics.md defines every "
      "figure. <span id=\"kbx-script-status\" data-status=\"not run\">static</span></footer>\n"
      "<script>{}</script>\n</body>\n</html>\n",
      escape(generator), script);
}

}  // namespace

std::string render_html_report(const std::vector<NamedRun>& runs, const std::string& generator,
                               const HtmlOptions& options) {
  return page_head(runs) + page_header(runs) + summary_section(runs) + category_section(runs) +
         html::heatmap_section(runs) + speedup_section(runs) +
         html::speedup_distribution_section(runs) + html::utilisation_section(runs) +
         html::iterations_section(runs) + html::cross_device_section(runs) +
         task_section(runs, options.best_known) + failure_section(runs) +
         html::taxonomy_section(runs) + html::diagnostics_section(runs) + page_footer(generator);
}

}  // namespace kbx::report
