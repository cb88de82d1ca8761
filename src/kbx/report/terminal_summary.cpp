// render_terminal_summary: the per-category table, the speedup verdicts, the outcome line and the
// input errors.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "kbx/report/exports.h"

namespace kbx::report {
namespace {

constexpr std::size_t column_count = 7;
constexpr std::size_t max_category_chars = 24;
constexpr std::size_t max_line_chars = 100;
constexpr std::size_t max_input_errors_listed = 5;
constexpr double good_rate = 0.5;  // rates at or above are green, below red

constexpr const char* ansi_green = "\x1b[32m";
constexpr const char* ansi_red = "\x1b[31m";
constexpr const char* ansi_bold = "\x1b[1m";
constexpr const char* ansi_reset = "\x1b[0m";

struct Cell {
  std::string text;
  const char* color = nullptr;  // an ANSI code, or nullptr for none
};

using Line = std::array<Cell, column_count>;

constexpr std::array<const char*, column_count> headers{"Category", "Tasks",   "Call",  "Exe",
                                                        "Perf",     "Speedup", "Faster"};

// `text` on one line, cut to `max_chars` with "..." marking the cut.
std::string clip(std::string text, std::size_t max_chars) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text.size() <= max_chars ? text : text.substr(0, max_chars - 3) + "...";
}

Cell pass_cell(int pass, int total) {
  if (total == 0) {
    return {"0", nullptr};
  }
  double r = static_cast<double>(pass) / total;
  return {fmt::format("{} ({:.0f}%)", pass, r * 100), r >= good_rate ? ansi_green : ansi_red};
}

Cell speedup_cell(const Totals& t) {
  if (t.perf_pass == 0) {
    return {"-", nullptr};
  }
  return {fmt::format("{:.2f}x", t.geomean_speedup),
          t.geomean_speedup >= 1 ? ansi_green : ansi_red};
}

Line make_line(const std::string& name, const Totals& t) {
  return {Cell{clip(name, max_category_chars)},
          Cell{std::to_string(t.total)},
          pass_cell(t.call_pass, t.total),
          pass_cell(t.exe_pass, t.total),
          pass_cell(t.perf_pass, t.total),
          speedup_cell(t),
          Cell{std::to_string(t.verdicts.faster)}};
}

std::array<std::size_t, column_count> column_widths(const std::vector<Line>& lines) {
  std::array<std::size_t, column_count> widths{};
  for (std::size_t c = 0; c < column_count; ++c) {
    widths[c] = std::string_view(headers[c]).size();
    for (const Line& line : lines) {
      widths[c] = std::max(widths[c], line[c].text.size());
    }
  }
  return widths;
}

// One table line: the first column left-aligned, the others right-aligned, two spaces apart.
std::string render_line(const Line& line, const std::array<std::size_t, column_count>& widths,
                        bool color) {
  std::string out;
  for (std::size_t c = 0; c < column_count; ++c) {
    const Cell& cell = line[c];
    std::string pad(widths[c] - cell.text.size(), ' ');
    bool paint = color && cell.color != nullptr;
    std::string text = paint ? fmt::format("{}{}{}", cell.color, cell.text, ansi_reset) : cell.text;
    if (c == 0) {
      out += text;
      out += pad;
    } else {
      out += "  ";
      out += pad;
      out += text;
    }
  }
  return out + "\n";
}

std::string render_table(const ReportModel& model, bool color) {
  std::vector<Line> lines;
  for (const auto& [name, totals] : model.categories) {
    lines.push_back(make_line(name, totals));
  }
  Line total_line = make_line("TOTAL", model.overall);
  total_line[0].color = ansi_bold;
  lines.push_back(total_line);
  auto widths = column_widths(lines);
  Line header_line;
  for (std::size_t c = 0; c < column_count; ++c) {
    header_line[c] = Cell{headers[c], color ? ansi_bold : nullptr};
  }
  std::size_t width = column_count * 2 - 2;
  for (std::size_t w : widths) {
    width += w;
  }
  std::string rule(width, '-');
  std::string out = render_line(header_line, widths, color) + rule + "\n";
  if (!model.categories.empty()) {
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
      out += render_line(lines[i], widths, color);
    }
    out += rule + "\n";
  }
  return out + render_line(total_line, widths, color);
}

std::string render_outcomes(const ReportModel& model) {
  std::vector<std::string> parts;
  for (const auto& [outcome, count] : model.outcomes) {
    parts.push_back(fmt::format("{} {}", outcome, count));
  }
  return fmt::format("Outcomes: {}\n",
                     parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", ")));
}

// Utilisation against the device's measured ceilings, and the rows that exceed them; nothing
// without ceilings (run `kbx calibrate`).
std::string render_utilisation(const ReportModel& model) {
  if (model.ceilings.is_null()) {
    return {};
  }
  std::vector<double> bandwidth;
  std::vector<std::string> suspect;
  for (const SubmissionRow& r : model.rows) {
    if (r.bandwidth_utilisation) {
      bandwidth.push_back(*r.bandwidth_utilisation);
    }
    if (r.utilisation_suspect) {
      suspect.push_back(r.file);
    }
  }
  if (bandwidth.empty()) {
    return {};
  }
  std::sort(bandwidth.begin(), bandwidth.end());
  std::string out = fmt::format(
      "Bandwidth against the measured {:.0f} GB/s copy: median {:.0f}%, best {:.0f}%\n",
      model.ceilings.value("copy_gbs", 0.0), bandwidth[bandwidth.size() / 2] * 100,
      bandwidth.back() * 100);
  if (!suspect.empty()) {
    std::size_t listed = std::min<std::size_t>(suspect.size(), 5);
    out += clip(fmt::format("Over 100% of a measured ceiling (suspect: byte or FLOP model, or "
                            "skipped work): {} ({}{})",
                            suspect.size(),
                            fmt::join(suspect.begin(), suspect.begin() + static_cast<long>(listed), ", "),
                            listed < suspect.size() ? ", ..." : ""),
                max_line_chars) +
           "\n";
  }
  return out;
}

// How adaptive sampling ended for the candidates' timed workloads: how many met the interval
// target, and the widest of those that stopped at the budget.
std::string render_sampling(const ReportModel& model) {
  SamplingCounts c = count_sampling(model);
  if (c.timed == 0) {
    return {};
  }
  std::string out = fmt::format("Sampling: {} of {} workloads within {:.0f}% (median's 95% "
                                "interval)",
                                c.met, c.timed, stats::kMedianCiTarget * 100);
  if (c.brackets > 0) {
    out += fmt::format(", {} by brackets", c.brackets);
  }
  if (c.at_budget() == 0) {
    return out + "\n";
  }
  out += fmt::format(", {} at the budget\n", c.at_budget());
  return out + clip(fmt::format("  widest at the budget: {}, {}", c.widest_at,
                                std::isfinite(c.widest) ? fmt::format("+-{:.1f}%", c.widest * 100)
                                                        : std::string("too few samples")),
                    max_line_chars) +
         "\n";
}

// How the timed rows' speedup intervals came out; nothing when no row was timed.
std::string render_verdicts(const ReportModel& model) {
  const Totals::VerdictCounts& v = model.overall.verdicts;
  if (model.overall.perf_pass == 0) {
    return {};
  }
  std::string out = fmt::format(
      "Speedups (95% interval; same: within {:.0f}%): faster {}, same {}, slower {}, "
      "ambiguous {}\n",
      stats::same_speed_margin * 100, v.faster, v.same, v.slower, v.ambiguous);
  auto host_synchronising = std::count_if(model.rows.begin(), model.rows.end(), [](const auto& r) {
    return r.perf_ok && r.host_synchronising;
  });
  if (host_synchronising > 0) {
    out += fmt::format(
        "Host-synchronising references (GPU idle for most of the call): {} timed task{}, "
        "intervals widened by {:.0f}% each side\n",
        host_synchronising, host_synchronising == 1 ? "" : "s",
        stats::host_synchronising_margin * 100);
  }
  return out + render_sampling(model) + render_utilisation(model);
}

// The speedups against torch.compile, in runs with that baseline: the geometric mean over the rows
// that have one, the verdicts, and how many timed rows lack one (compile failed for their task).
std::string render_vs_compile(const ReportModel& model) {
  if (!model.has_compile_baseline() || model.overall.perf_pass == 0) {
    return {};
  }
  const Totals::Baseline& b = model.overall.vs_compile;
  std::string out = fmt::format(
      "vs torch.compile (default mode; 95% interval): geomean {:.3f}x over {} timed, faster {}, "
      "same {}, slower {}, ambiguous {}\n",
      b.geomean_speedup, b.timed, b.verdicts.faster, b.verdicts.same, b.verdicts.slower,
      b.verdicts.ambiguous);
  int missing = model.overall.perf_pass - b.timed;
  if (missing > 0) {
    out += fmt::format(
        "  {} timed submission{} without a torch.compile baseline (compile_note in "
        "kbx-results.json)\n",
        missing, missing == 1 ? "" : "s");
  }
  return out;
}

// CUDA-graph mode, one line apart from the eager figures: how many launch-bound workloads both
// sides replayed as graphs, the geometric mean of the graph speedups and of the eager speedups of
// the same submissions, and how many captures failed.
std::string render_graph(const ReportModel& model) {
  const Totals::Graph& g = model.overall.graph;
  if (!model.graph_mode || (g.timed == 0 && g.failed_workloads == 0)) {
    return {};
  }
  std::string out = "CUDA graphs: ";
  if (g.timed > 0) {
    out += fmt::format(
        "{} launch-bound workload{} in {} task{} replayed as graphs; geomean speedup in graph "
        "mode {:.2f}x (eager {:.2f}x on the same tasks)",
        g.workloads, g.workloads == 1 ? "" : "s", g.tasks, g.tasks == 1 ? "" : "s",
        g.geomean_speedup, g.eager_geomean_speedup);
  } else {
    out += "no workload replayed as a graph on both sides";
  }
  if (g.failed_workloads > 0) {
    out += fmt::format("; capture failed on {} workload{} (graph_error in kbx-results.json)",
                       g.failed_workloads, g.failed_workloads == 1 ? "" : "s");
  }
  return out + "\n";
}

std::string render_input_errors(const ReportModel& model) {
  if (model.input_errors.empty()) {
    return {};
  }
  std::string out = fmt::format("Input errors ({}):\n", model.input_errors.size());
  std::size_t listed = std::min(model.input_errors.size(), max_input_errors_listed);
  for (std::size_t i = 0; i < listed; ++i) {
    const auto& e = model.input_errors[i];
    out += clip(fmt::format("  {}: {}", e.origin, e.message), max_line_chars) + "\n";
  }
  if (listed < model.input_errors.size()) {
    out +=
        fmt::format("  ... and {} more (see summary.json)\n", model.input_errors.size() - listed);
  }
  return out;
}

}  // namespace

std::string render_terminal_summary(const ReportModel& model, bool color) {
  std::string out;
  if (!model.device.empty()) {
    out += clip("Device: " + model.device, max_line_chars) + "\n";
  }
  if (!model.labels.empty()) {
    std::string run = "Run:";
    for (const auto& [key, value] : model.labels) {
      run += fmt::format(" {}={}", key, value);
    }
    out += clip(run, max_line_chars) + "\n";
  }
  if (model.perf_scale != 1) {
    out += fmt::format("Perf workloads shrunk to {:g} of their bytes (--perf-scale): speedups are "
                       "not comparable with full-size runs\n",
                       model.perf_scale);
  }
  return out + render_table(model, color) + render_verdicts(model) + render_vs_compile(model) +
         render_graph(model) + render_outcomes(model) + render_input_errors(model);
}

}  // namespace kbx::report
