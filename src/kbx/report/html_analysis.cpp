// The HTML report's analysis sections, each an SVG plot (or a note when there is no data), a CSV
// of the plot's data and, where useful, a sortable table.
#include "kbx/report/html_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "kbx/report/analyze.h"
#include "kbx/report/csv.h"
#include "kbx/report/html_parts.h"
#include "kbx/report/iterations.h"
#include "kbx/report/taxonomy.h"
#include "kbx/report/utilisation.h"

namespace kbx::report::html {
namespace {

constexpr std::size_t max_detail_chars = 2000;

// A log2 scale mapping [lo, hi] (values) onto [from, to] (pixels).
struct LogScale {
  double log_lo = -1;
  double log_hi = 1;
  double from = 0;
  double to = 1;

  /// Spans the values (and 1 when `with_one`: speedups keep eager's line in view).
  static LogScale over(const std::vector<double>& values, double from, double to,
                       bool with_one = true) {
    double lo = with_one || values.empty() ? 1 : values.front();
    double hi = lo;
    for (double v : values) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    LogScale s;
    s.log_lo = std::floor(std::log2(std::max(lo, 1e-9)));
    s.log_hi = std::max(s.log_lo + 1, std::ceil(std::log2(hi)));
    s.from = from;
    s.to = to;
    return s;
  }

  [[nodiscard]] double at(double v) const {
    return from + (std::log2(v) - log_lo) / (log_hi - log_lo) * (to - from);
  }
};

std::string tick_label(double v, const char* unit) {
  return v >= 1 ? fmt::format("{:g}{}", v, unit) : fmt::format("1/{:g}{}", 1 / v, unit);
}

// Vertical grid lines and labels of a horizontal log axis, every power of two (or of ten when
// the range is wide).
std::string x_axis(const LogScale& s, double top, double bottom, const char* unit) {
  std::string out;
  double step = s.log_hi - s.log_lo > 7 ? std::log2(10.0) : 1.0;
  double start = step == 1.0 ? s.log_lo : std::ceil(s.log_lo / step) * step;
  for (double e = start; e <= s.log_hi + 1e-9; e += step) {
    double v = std::exp2(e);
    double x = s.at(v);
    out += fmt::format(
        "<line class=\"{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        std::abs(e) < 1e-9 && unit[0] == 'x' ? "one" : "axis", x, x, top, bottom, x, bottom + 12,
        step == 1.0 ? tick_label(v, unit)
                    : fmt::format("{:g}{}", v >= 1 ? std::round(v) : v, unit));
  }
  return out;
}

std::string svg_open(const std::string& id, double width, double height, const std::string& label) {
  return fmt::format(
      "<svg class=\"plot\" id=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} "
      "{:.0f}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      id, width, height, width, height, escape(label));
}

std::string note(const std::string& text) {
  return fmt::format("<p class=\"note\">{}</p>\n", escape(text));
}

std::string section_open(const std::string& id, const std::string& title, const std::string& what) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n<p class=\"muted\">{}</p>\n", id,
                     escape(title), what);
}

bool timed(const SubmissionRow& r) {
  return r.exe_ok && r.perf_ok && r.speedup > 0 && std::isfinite(r.speedup);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(v.size() - 1) / 2];
}

// ---- heatmap -------------------------------------------------------------------------------

std::string heatmap_svg(const Analysis& a, const std::vector<std::string>& categories,
                        const std::vector<std::string>& methods) {
  constexpr double left = 170;
  constexpr double top = 28;
  constexpr double cell_w = 110;
  constexpr double cell_h = 24;
  double width = left + cell_w * static_cast<double>(methods.size()) + 10;
  double height = top + cell_h * static_cast<double>(categories.size()) + 10;
  std::string out = svg_open("plot-heatmap", width, height, "exe pass rate by category and method");
  for (std::size_t m = 0; m < methods.size(); ++m) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"18\" text-anchor=\"middle\">{}</text>\n",
                       left + cell_w * (static_cast<double>(m) + 0.5), escape(methods[m]));
  }
  for (std::size_t c = 0; c < categories.size(); ++c) {
    double y = top + cell_h * static_cast<double>(c);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6,
                       y + 16, escape(categories[c]));
    for (std::size_t m = 0; m < methods.size(); ++m) {
      auto g = std::find_if(a.groups.begin(), a.groups.end(), [&](const GroupStats& s) {
        return s.key == std::vector<std::string>{categories[c], methods[m]};
      });
      double x = left + cell_w * static_cast<double>(m);
      if (g == a.groups.end()) {
        out += fmt::format(
            "<rect class=\"cell empty\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" "
            "height=\"{:.0f}\"/>\n",
            x + 1, y + 1, cell_w - 2, cell_h - 2);
        continue;
      }
      double rate = static_cast<double>(g->exe_pass) / std::max(1, g->submissions);
      out += fmt::format(
          "<g class=\"cell\"><title>{} x {}: {} of {} correct</title><rect x=\"{:.1f}\" "
          "y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"{}\"/><text class=\"in\" "
          "x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.0f}% ({}/{})</text></g>\n",
          escape(categories[c]), escape(methods[m]), g->exe_pass, g->submissions, x + 1, y + 1,
          cell_w - 2, cell_h - 2, rate_colour(rate), x + cell_w / 2, y + 16, 100 * rate,
          g->exe_pass, g->submissions);
    }
  }
  return out + "</svg>\n";
}

// ---- speedups per category ------------------------------------------------------------------

struct Point {
  std::string category;
  std::string run;
  std::string task;
  double value = 0;
};

// One row of dots per category on a horizontal log scale, the median marked.
std::string strip_plot(const std::string& id, const std::vector<Point>& points, const char* unit,
                       const std::string& label, bool with_one,
                       std::optional<double> mark = std::nullopt,
                       const std::string& mark_label = "") {
  std::map<std::string, std::vector<const Point*>> rows;
  std::vector<double> values;
  for (const auto& p : points) {
    rows[p.category].push_back(&p);
    values.push_back(p.value);
  }
  if (mark && *mark > 0) {
    values.push_back(*mark);  // kept in view
  }
  constexpr double left = 170;
  constexpr double row_h = 26;
  constexpr double top = 8;
  double width = 780;
  double height = top + row_h * static_cast<double>(rows.size()) + 24;
  LogScale s = LogScale::over(values, left, width - 40, with_one);
  std::string out = svg_open(id, width, height, label);
  out += x_axis(s, top, height - 20, unit);
  if (mark && *mark > 0) {
    out += fmt::format(
        "<line class=\"one\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"end\">{4}</text>\n",
        s.at(*mark), top, height - 20, top + 9, escape(mark_label));
  }
  std::size_t r = 0;
  for (const auto& [category, list] : rows) {
    double y = top + row_h * static_cast<double>(r++) + row_h / 2;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{} (n={})</text>\n",
                       left - 6, y + 4, escape(category), list.size());
    std::vector<double> vs;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Point& p = *list[i];
      vs.push_back(p.value);
      double jitter = (static_cast<double>(i % 5) - 2) * 2.5;
      out += fmt::format(
          "<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{} ({}): {:.3g}{}"
          "</title></circle>\n",
          s.at(p.value), y + jitter, escape(p.task), escape(p.run), p.value, unit);
    }
    double m = s.at(median_of(vs));
    out += fmt::format(
        "<line class=\"median\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>\n", m,
        y - 10, y + 10);
  }
  return out + "</svg>\n";
}

std::string points_csv(const std::vector<Point>& points, const char* value_name) {
  std::string out = fmt::format("category,run,task,{}\n", value_name);
  for (const auto& p : points) {
    out += fmt::format("{},{},{},{:.6g}\n", csv_field(p.category), csv_field(p.run),
                       csv_field(p.task), p.value);
  }
  return out;
}

// ---- iterations ---------------------------------------------------------------------------

std::string rounds_svg(const Iterations& it, std::size_t index) {
  constexpr double left = 44;
  constexpr double top = 10;
  constexpr double plot_h = 150;
  constexpr double bar_w = 46;
  constexpr double gap = 30;
  double width = left + (bar_w + gap) * static_cast<double>(it.rounds.size()) + 20;
  double height = top + plot_h + 40;
  std::string out = svg_open(fmt::format("plot-rounds-{}", index), width, height,
                             "exe rate per round of " + it.method);
  for (int pct : {0, 50, 100}) {
    double y = top + plot_h * (1 - pct / 100.0);
    out += fmt::format(
        "<line class=\"axis\" x1=\"{:.0f}\" x2=\"{:.0f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/><text "
        "x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}%</text>\n",
        left, width - 10, y, y, left - 4, y + 4, pct);
  }
  for (std::size_t i = 0; i < it.rounds.size(); ++i) {
    const RoundStats& r = it.rounds[i];
    double exe = static_cast<double>(r.exe_pass) / std::max(1, r.submissions);
    double solved = static_cast<double>(r.solved_by_round) / std::max(1, r.lineages);
    double x = left + gap / 2 + (bar_w + gap) * static_cast<double>(i);
    out += fmt::format(
        "<g><title>round {}: {} of {} submissions correct; {} of {} lineages solved by then"
        "</title><rect class=\"exe\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\"/>"
        "<circle class=\"solved\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\"/></g>\n"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">round {}</text>\n",
        escape(r.round), r.exe_pass, r.submissions, r.solved_by_round, r.lineages, x,
        top + plot_h * (1 - exe), bar_w, plot_h * exe, x + bar_w / 2, top + plot_h * (1 - solved),
        x + bar_w / 2, top + plot_h + 16, escape(r.round));
  }
  return out + "</svg>\n";
}

std::string speedup_cell(const std::optional<double>& s) {
  return s ? fmt::format("<td class=\"num\" data-sort=\"{}\">{:.2f}x</td>", *s, *s)
           : std::string("<td class=\"num\" data-sort=\"\">-</td>");
}

std::string iteration_tables(const Iterations& it) {
  std::string out =
      "<table class=\"grid sortable transitions\">\n<thead><tr><th>From round</th><th>To round"
      "</th><th>fail&rarr;pass</th><th>pass&rarr;fail</th><th>pass&rarr;pass</th>"
      "<th>fail&rarr;fail</th></tr></thead>\n<tbody>\n";
  for (const auto& s : it.steps) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        escape(s.from), escape(s.to), s.counts.fail_to_pass, s.counts.pass_to_fail,
        s.counts.pass_to_pass, s.counts.fail_to_fail);
  }
  out += "</tbody>\n</table>\n";
  out +=
      "<table class=\"grid lineages\">\n<thead><tr><th>Lineages</th><th>Count</th><th>Timed</th>"
      "<th>Speedup of the first correct kernel (geomean)</th></tr></thead>\n<tbody>\n";
  for (const auto& [name, g] : {std::pair<const char*, const LineageGroup&>{
                                    "persistently correct (first round)", it.persistent},
                                {"rescued (correct after failing)", it.rescued}}) {
    out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>\n",
                       name, g.lineages, g.timed, speedup_cell(g.geomean_speedup));
  }
  out += fmt::format(
      "<tr><td>never correct</td><td class=\"num\">{}</td><td class=\"num\">-</td>"
      "<td class=\"num\">-</td></tr>\n",
      it.never_correct);
  return out + "</tbody>\n</table>\n";
}

// ---- cross-device -------------------------------------------------------------------------

std::string spread_svg(const Comparison& c, std::size_t index) {
  std::vector<std::pair<double, std::string>> spreads;
  for (const auto& row : c.rows) {
    if (row.spread) {
      spreads.emplace_back(*row.spread, row.task);
    }
  }
  std::sort(spreads.begin(), spreads.end());
  constexpr double left = 52;
  constexpr double top = 10;
  constexpr double plot_h = 180;
  double width = 780;
  double height = top + plot_h + 30;
  std::vector<double> values;
  for (const auto& [s, t] : spreads) {
    values.push_back(s);
  }
  LogScale y = LogScale::over(values, top + plot_h, top);
  std::string out = svg_open(fmt::format("plot-spread-{}", index), width, height,
                             "speedup spread across devices per task");
  for (double e = y.log_lo; e <= y.log_hi + 1e-9; e += 1) {
    double v = std::exp2(e);
    out += fmt::format(
        "<line class=\"axis\" x1=\"{:.0f}\" x2=\"{:.0f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/><text "
        "x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}x</text>\n",
        left, width - 10, y.at(v), y.at(v), left - 4, y.at(v) + 4, v);
  }
  double bar_w =
      (width - left - 16) / static_cast<double>(std::max<std::size_t>(1, spreads.size()));
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    double x = left + bar_w * static_cast<double>(i);
    double y1 = y.at(spreads[i].first);
    out += fmt::format(
        "<rect class=\"spread\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\">"
        "<title>{}: {:.3g}x</title></rect>\n",
        x + 1, y1, std::max(1.0, bar_w - 2), std::max(1.0, y.at(1) - y1), escape(spreads[i].second),
        spreads[i].first);
  }
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">tasks timed on several devices, by "
      "spread (max/min speedup)</text>\n",
      (left + width) / 2, height - 6);
  return out + "</svg>\n";
}

std::string spread_csv(const Comparison& c) {
  std::string out = "task";
  for (std::size_t r = 0; r < c.runs.size(); ++r) {
    out += "," + csv_field(c.runs[r] + " (" + c.devices[r] + ")");
  }
  out += ",spread,outcome_changed,verdict_changed\n";
  for (const auto& row : c.rows) {
    out += csv_field(row.task);
    for (const auto& t : row.runs) {
      out += t && t->speedup ? fmt::format(",{:.6g}", *t->speedup) : std::string(",");
    }
    out += fmt::format(",{},{},{}\n", row.spread ? fmt::format("{:.6g}", *row.spread) : "",
                       row.outcome_changed ? 1 : 0, row.verdict_changed ? 1 : 0);
  }
  return out;
}

// ---- taxonomy ----------------------------------------------------------------------------

std::string family_svg(const Taxonomy& t) {
  constexpr double left = 110;
  constexpr double row_h = 24;
  double width = 640;
  double height = row_h * static_cast<double>(t.families.size()) + 10;
  int most = 1;
  for (const auto& [f, n] : t.families) {
    most = std::max(most, n);
  }
  std::string out = svg_open("plot-taxonomy", width, height, "failures by family");
  for (std::size_t i = 0; i < t.families.size(); ++i) {
    const auto& [family, n] = t.families[i];
    double y = 4 + row_h * static_cast<double>(i);
    double w = (width - left - 60) * n / most;
    out += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text><rect class=\"family\" "
        "x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\"><title>{}: {}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        left - 6, y + 15, to_string(family), left, y + 2, std::max(w, 0.5), row_h - 6,
        to_string(family), n, left + w + 6, y + 15, n);
  }
  return out + "</svg>\n";
}

std::string taxonomy_table(const Taxonomy& t, const std::vector<std::string>& methods) {
  std::string out =
      "<table class=\"grid sortable\" id=\"taxonomy-table\">\n<thead><tr><th>Family</th>"
      "<th>Kind</th><th>Count</th>";
  for (const auto& m : methods) {
    out += fmt::format("<th>{}</th>", escape(m));
  }
  out += "<th>First example</th></tr></thead>\n<tbody>\n";
  for (const auto& e : t.entries) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td>", to_string(e.family),
                       escape(e.kind), e.count);
    for (const auto& m : methods) {
      auto it = e.by_method.find(m);
      out += fmt::format("<td class=\"num\">{}</td>", it == e.by_method.end() ? 0 : it->second);
    }
    out += fmt::format("<td class=\"muted\"><a href=\"#{}\">{}</a>: {}</td></tr>\n",
                       task_anchor(e.example_task), escape(e.example_task),
                       escape(e.example_detail.substr(0, 200)));
  }
  return out + "</tbody>\n</table>\n";
}

// ---- diagnostics -------------------------------------------------------------------------

std::string labels_text(const SubmissionRow& r) {
  std::string out;
  for (const auto& [k, v] : r.labels) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  }
  return out;
}

std::string workloads_text(const SubmissionRow& r) {
  std::string out;
  for (const auto& w : r.workloads) {
    out += fmt::format("{}#{}: {:.4g} ms vs {:.4g} ms ({:.3g}x)", out.empty() ? "" : "; ", w.index,
                       w.candidate_ms.median, w.reference_ms.median, w.speedup);
  }
  return out.empty() ? "-" : out;
}

std::string submission_line(const NamedRun& run, const SubmissionRow& r) {
  std::string detail = r.detail.size() > max_detail_chars
                           ? r.detail.substr(0, max_detail_chars - 3) + "..."
                           : r.detail;
  return fmt::format(
      "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td>"
      "<td class=\"num\">{}</td><td>{}</td></tr>\n",
      escape(run.name), escape(r.origin), escape(labels_text(r)),
      r.outcome == "ok" ? "o-ok" : "o-bad", escape(r.outcome),
      escape(r.reason.empty() ? "-" : r.reason), escape(detail),
      timed(r) ? fmt::format("{:.3f}x", r.speedup) : "-", escape(workloads_text(r)));
}

}  // namespace

std::string heatmap_section(const std::vector<NamedRun>& runs) {
  Analysis a = analyze_runs(runs, {"category", "method"});
  std::set<std::string> categories;
  std::set<std::string> methods;
  std::string csv = "category,method,submissions,exe_pass,exe_rate\n";
  for (const auto& g : a.groups) {
    categories.insert(g.key[0]);
    methods.insert(g.key[1]);
    csv +=
        fmt::format("{},{},{},{},{:.6g}\n", csv_field(g.key[0]), csv_field(g.key[1]), g.submissions,
                    g.exe_pass, static_cast<double>(g.exe_pass) / std::max(1, g.submissions));
  }
  std::string out = section_open(
      "heatmap", "Pass rates: category x method",
      "Share of submissions that are correct (exe), per task category and generation method "
      "(the <code>method</code> label; - without one). " +
          csv_link("pass_rates_category_method.csv", csv));
  if (a.groups.empty()) {
    return out + note("No submissions.") + "</section>\n";
  }
  return out +
         heatmap_svg(a, {categories.begin(), categories.end()}, {methods.begin(), methods.end()}) +
         "</section>\n";
}

std::string speedup_distribution_section(const std::vector<NamedRun>& runs) {
  std::vector<Point> points;
  for (const auto& run : runs) {
    for (const auto& r : run.model.rows) {
      if (timed(r)) {
        points.push_back({r.category, run.name, r.file, r.speedup});
      }
    }
  }
  std::string out = section_open(
      "speedup-distributions", "Speedup distributions per category",
      "Every correct, timed submission's speedup over PyTorch eager (log scale); the bar marks "
      "each category's median. " +
          csv_link("speedups_per_category.csv", points_csv(points, "speedup")));
  if (points.empty()) {
    return out + note("No timed submissions (perf runs only on CUDA, only for correct ones).") +
           "</section>\n";
  }
  return out + strip_plot("plot-speedup-distribution", points, "x", "speedups per category", true) +
         "</section>\n";
}

std::string utilisation_section(const std::vector<NamedRun>& runs) {
  std::vector<Point> points;
  for (const auto& run : runs) {
    for (const auto& r : run.model.rows) {
      if (r.exe_ok && r.perf_ok && r.gbs > 0 && std::isfinite(r.gbs)) {
        points.push_back({r.category, run.name, r.file, r.gbs});
      }
    }
  }
  auto u = utilisation(runs);
  std::optional<double> copy_gbs = shared_copy_gbs(runs);
  std::string peak_text =
      copy_gbs ? fmt::format("The dashed line is the copy bandwidth kbx calibrate measured on "
                             "this device, {:.0f} GB/s; a point beyond it moves more than a copy "
                             "could (a byte model that counts unfused traffic, or skipped work). ",
                             *copy_gbs)
               : std::string("No measured ceilings in these runs (kbx calibrate): compare with "
                             "the GPU's copy bandwidth. ");
  std::string out = section_open(
      "utilisation", "Utilisation: achieved bandwidth",
      "GB/s of every correct, timed submission whose task declares its bytes (log scale), per "
      "category; the bar marks the median. " + peak_text +
          csv_link("utilisation.csv", utilisation_csv(u, {copy_gbs, std::nullopt})) + " " +
          csv_link("gbs_per_submission.csv", points_csv(points, "gbs")));
  if (points.empty()) {
    return out + note("No timed submissions with declared bytes.") + "</section>\n";
  }
  return out + strip_plot("plot-utilisation", points, " GB/s", "GB/s per category", false,
                          copy_gbs, copy_gbs ? fmt::format("copy {:.0f} GB/s", *copy_gbs) : "") +
         "</section>\n";
}

std::string iterations_section(const std::vector<NamedRun>& runs) {
  auto its = iterations(runs);
  std::string out = section_open(
      "iterations", "Iterations",
      "Per method with several rounds: bars are each round's exe rate, dots the share of "
      "lineages (a chain of submissions refining one another) correct by that round; "
      "transitions compare consecutive submissions of a lineage (docs/analysis.md). " +
          csv_link("iterations.csv", iterations_csv(its)));
  if (its.empty()) {
    return out + note("No method with several rounds in these runs.") + "</section>\n";
  }
  for (std::size_t i = 0; i < its.size(); ++i) {
    out += fmt::format("<h3>{} ({} lineages)</h3>\n", escape(its[i].method), its[i].lineages);
    out += rounds_svg(its[i], i) + iteration_tables(its[i]);
  }
  return out + "</section>\n";
}

std::string cross_device_section(const std::vector<NamedRun>& runs) {
  auto comparisons = compare_devices(runs);
  std::string out = section_open(
      "cross-device", "Across devices",
      "Runs with the same labels on different devices, joined by task: each task's speedup "
      "spread (max/min) and the tasks whose outcome or speedup verdict changed.");
  if (comparisons.empty()) {
    return out + note("Every run with the same labels is on one device.") + "</section>\n";
  }
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const Comparison& c = comparisons[i].comparison;
    out += fmt::format(
        "<h3>{}</h3>\n<p>{} tasks timed on every device; spread median {}, p95 {}; outcome "
        "changed on {}, verdict changed on {}. {}</p>\n",
        escape(comparisons[i].labels), c.timed_in_all,
        c.median_spread ? fmt::format("{:.2f}x", *c.median_spread) : "-",
        c.p95_spread ? fmt::format("{:.2f}x", *c.p95_spread) : "-", c.outcome_changes,
        c.verdict_changes, csv_link(fmt::format("cross_device_{}.csv", i), spread_csv(c)));
    bool any = std::any_of(c.rows.begin(), c.rows.end(), [](const auto& r) { return r.spread; });
    out += any ? spread_svg(c, i) : note("No task was timed on two devices.");
  }
  return out + "</section>\n";
}

std::string taxonomy_section(const std::vector<NamedRun>& runs) {
  Taxonomy t = failure_taxonomy(runs);
  std::set<std::string> methods;
  for (const auto& e : t.entries) {
    for (const auto& [m, n] : e.by_method) {
      methods.insert(m);
    }
  }
  std::string out = section_open(
      "taxonomy", "Failure taxonomy",
      fmt::format("{} of {} judged submissions failed, by family and kind (docs/analysis.md). ",
                  t.failures, t.submissions) +
          csv_link("failure_taxonomy.csv", taxonomy_csv(t)));
  if (t.failures == 0) {
    return out + note("No failures.") + "</section>\n";
  }
  return out + family_svg(t) + "<div class=\"scroll\">" +
         taxonomy_table(t, {methods.begin(), methods.end()}) + "</div>\n</section>\n";
}

std::string diagnostics_section(const std::vector<NamedRun>& runs) {
  std::map<std::string, std::vector<std::pair<const NamedRun*, const SubmissionRow*>>> by_task;
  for (const auto& run : runs) {
    for (const auto& r : run.model.rows) {
      by_task[r.file].emplace_back(&run, &r);
    }
  }
  std::string out = section_open("diagnostics", "Diagnostics per task",
                                 "Every submission of each task: where it came from, its labels, "
                                 "outcome, reason, detail and per-workload medians.");
  for (const auto& [task, subs] : by_task) {
    out += fmt::format(
        "<details class=\"diag\" id=\"{}\"><summary>{} ({} submission{})</summary>\n"
        "<table class=\"grid\"><thead><tr><th>Run</th><th>Origin</th><th>Labels</th>"
        "<th>Outcome</th><th>Reason</th><th>Detail</th><th>Speedup</th><th>Workloads "
        "(candidate vs reference median)</th></tr></thead>\n<tbody>\n",
        task_anchor(task), escape(task), subs.size(), subs.size() == 1 ? "" : "s");
    for (const auto& [run, row] : subs) {
      out += submission_line(*run, *row);
    }
    out += "</tbody></table></details>\n";
  }
  return out + "</section>\n";
}

}  // namespace kbx::report::html
