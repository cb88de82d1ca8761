// timer-check.jsonl: read, judged, rendered.
#include "kbx/run/timer_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kbx/common/json.h"
#include "kbx/common/strings.h"

namespace kbx::run {
namespace {

double difference(const TimerCheckRow& r) { return std::abs(r.kbx_ms / r.do_bench_ms - 1.0); }

}  // namespace

Result<std::vector<TimerCheckRow>> parse_timer_check(const std::string& text) {
  std::vector<TimerCheckRow> rows;
  int line_no = 0;
  for (const auto& line : split(text, '\n')) {
    ++line_no;
    if (trim(line).empty()) {
      continue;
    }
    Json j = Json::parse(line, nullptr, false);
    bool ok = j.is_object() && j.contains("task") && j["task"].is_string() &&
              j.contains("kbx_ms") && j["kbx_ms"].is_number() && j.contains("do_bench_ms") &&
              j["do_bench_ms"].is_number() && j.value("kbx_ms", 0.0) > 0 &&
              j.value("do_bench_ms", 0.0) > 0;
    if (!ok) {
      return Error(ErrorKind::input, "timer-check.jsonl line {}: not a timed workload: {}",
                   line_no, std::string(line).substr(0, 200));
    }
    rows.push_back({j["task"].get<std::string>(), j.value("workload", 0), j.value("gpu", 0),
                    j["kbx_ms"].get<double>(), j["do_bench_ms"].get<double>()});
  }
  return rows;
}

TimerCheckVerdict judge_timer_check(std::vector<TimerCheckRow> rows, double tolerance,
                                    double min_ms) {
  TimerCheckVerdict v;
  std::vector<double> differences;
  for (const auto& r : rows) {
    if (std::min(r.kbx_ms, r.do_bench_ms) < min_ms) {
      continue;
    }
    v.judged += 1;
    v.within += difference(r) <= tolerance ? 1 : 0;
    differences.push_back(difference(r));
  }
  if (!differences.empty()) {
    std::sort(differences.begin(), differences.end());
    std::size_t n = differences.size();
    v.median_difference =
        n % 2 == 1 ? differences[n / 2] : (differences[n / 2 - 1] + differences[n / 2]) / 2;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TimerCheckRow& a, const TimerCheckRow& b) {
    return difference(a) > difference(b);
  });
  v.rows = std::move(rows);
  return v;
}

std::string render_timer_check(const TimerCheckVerdict& v, double tolerance, double min_ms,
                               int top) {
  std::string out = fmt::format(
      "kbx's timer against triton.testing.do_bench: {} of {} workloads of at least {:.0f} us "
      "within {:.0f}% (median difference {:.2f}%); {} shorter ones not judged\n",
      v.within, v.judged, min_ms * 1e3, tolerance * 100, v.median_difference * 100,
      v.rows.size() - static_cast<std::size_t>(v.judged));
  out += fmt::format("{:<48} {:>3} {:>11} {:>11} {:>8}  {}\n", "task", "wl", "kbx ms",
                     "do_bench ms", "diff", "");
  int shown = 0;
  for (const auto& r : v.rows) {
    if (top >= 0 && shown >= top) {
      break;
    }
    bool judged = std::min(r.kbx_ms, r.do_bench_ms) >= min_ms;
    std::string mark = !judged ? "short" : (difference(r) <= tolerance ? "ok" : "OUTSIDE");
    out += fmt::format("{:<48} {:>3} {:>11.4f} {:>11.4f} {:>7.2f}%  {}\n", r.task.substr(0, 48),
                       r.workload, r.kbx_ms, r.do_bench_ms, (r.kbx_ms / r.do_bench_ms - 1) * 100,
                       mark);
    ++shown;
  }
  return out;
}

}  // namespace kbx::run
