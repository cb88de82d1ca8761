// `kbx doctor --timing`: kbx's timer against triton.testing.do_bench on the same calls, judged.
#pragma once

#include <string>
#include <vector>

#include "kbx/common/result.h"

namespace kbx::run {

/// One workload timed both ways by the reference worker (a line of <out>/timer-check.jsonl).
struct TimerCheckRow {
  std::string task;
  int workload = 0;
  int gpu = 0;
  double kbx_ms = 0;       ///< the median of kbx's samples
  double do_bench_ms = 0;  ///< do_bench's median
};

struct TimerCheckVerdict {
  std::vector<TimerCheckRow> rows;  ///< every row, largest relative difference first
  int judged = 0;                   ///< rows with both medians at least min_ms
  int within = 0;                   ///< judged rows with |kbx / do_bench - 1| <= tolerance
  double median_difference = 0;     ///< median of |kbx / do_bench - 1| over judged rows
  [[nodiscard]] bool ok() const { return judged > 0 && within == judged; }
};

/// Reads timer-check.jsonl; an error names the line that is not a row.
Result<std::vector<TimerCheckRow>> parse_timer_check(const std::string& text);

/// Judges rows: a workload whose medians are both at least `min_ms` passes when kbx's is within
/// `tolerance` (relative) of do_bench's; shorter ones are listed but not judged (launch-bound
/// calls, where the two timers' overheads differ by design).
TimerCheckVerdict judge_timer_check(std::vector<TimerCheckRow> rows, double tolerance,
                                    double min_ms);

/// A table: the judged counts, then up to `top` rows (largest differences first).
std::string render_timer_check(const TimerCheckVerdict& v, double tolerance, double min_ms,
                               int top);

}  // namespace kbx::run
