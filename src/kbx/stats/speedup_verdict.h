// SpeedupVerdict: whether a speedup's confidence interval shows a win, a loss, a tie or too little.
#pragma once

#include <cmath>
#include <optional>
#include <string_view>

#include "kbx/stats/bootstrap.h"

namespace kbx::stats {

/// What a task's speedup interval says (docs/metrics.md), in the order reports list them.
enum class SpeedupVerdict {
  faster,     ///< the interval's low end is above 1 (and it is not `same`)
  same,       ///< the whole interval lies within the margin around 1
  slower,     ///< the interval's high end is below 1 (and it is not `same`)
  ambiguous,  ///< timed, but the interval straddles 1 and leaves the margin, or there is none
  none,       ///< not timed (no perf)
};

/// Differences within 5% of the reference count as the same speed: [1/1.05, 1.05] (the band a
/// reference timed against itself stays in, slot_margin included).
constexpr double same_speed_margin = 0.05;

/// How far any task's speedup moves between timing slots and runs beyond what its samples show:
/// every bootstrap interval is widened by this factor on each side before the verdict. Measured on
/// the H200: references timed against themselves (not host-synchronising) differed by up to 3%
/// in about nine runs of ten (docs/perf.md, 2026-12-02).
constexpr double slot_margin = 0.03;

/// How far a host-synchronising task's speedup moves between runs beyond what its samples show:
/// the bootstrap interval is widened by this factor on each side (instead of slot_margin), so
/// [low / 2, high x 2]. Such references timed against themselves: 0.848x-1.316x on the H200
/// (docs/perf.md, 2026-12-02); on H100 hosts 0.674x-2.152x (session 30), and in session 36's four
/// runs 0.720x-1.915x, where the 35% used until then let two through (`masked_select` as
/// `faster`, `fused_log_tanh` as `slower`). The host's two speed levels differ by 1.4-1.9x
/// (sessions 32-33), and a reference timed at one level against a candidate at the other moves
/// its speedup that much.
constexpr double host_synchronising_margin = 1.0;

/// Whether the GPU sat idle through a workload's samples beyond a share: busy under
/// `busy_fraction` of the median sample and over 50 us less (short calls whose launches leave
/// small gaps are never counted). The one test behind host_synchronising and holds_host_share.
inline bool gpu_idle_beyond(double median_ms, double kernel_busy_ms, double busy_fraction) {
  return std::isfinite(median_ms) && kernel_busy_ms < busy_fraction * median_ms &&
         median_ms - kernel_busy_ms > 0.05;
}

/// Whether a workload's calls spend most of their time on the host (LAPACK steps, a
/// synchronising check): the GPU busy under half the median sample (gpu_idle_beyond). Such
/// samples hold the host's share, so what else runs on the host moves them.
inline bool host_synchronising(double median_ms, double kernel_busy_ms) {
  return gpu_idle_beyond(median_ms, kernel_busy_ms, 0.5);
}

/// The GPU's busy share of a sample under which the host's state moves a workload's timing by
/// percents: session 39 on an H100, references cached a run earlier against candidates timed
/// now, `svd` (GPU busy 56% of its calls at the least) read 1.07x twice, `fused_svd_reconstruct`,
/// `invert_matrix_lu`, `cholesky` (54-63%) 1.01-1.03x; those busy 76% or more moved under 2.3%.
constexpr double host_share_busy_fraction = 0.7;

/// Whether a workload's samples hold a share of host time that the host's state moves: the GPU
/// busy under host_share_busy_fraction of the median sample (gpu_idle_beyond). Looser than
/// host_synchronising (which widens verdicts): kbx times such workloads with worker starts held
/// off the host, and their reference again next to each candidate (run/evaluate.cpp).
inline bool holds_host_share(double median_ms, double kernel_busy_ms) {
  return gpu_idle_beyond(median_ms, kernel_busy_ms, host_share_busy_fraction);
}

/// `interval` widened by `margin` on each side: [low / (1 + margin), high * (1 + margin)].
Interval widen(const Interval& interval, double margin);

/// The verdict on a task's speedup: `none` without perf, `ambiguous` when it was timed but has no
/// interval (a single sample per side), else by the interval and `margin` (same first).
SpeedupVerdict judge_speedup(bool timed, const std::optional<Interval>& interval,
                             double margin = same_speed_margin);

/// "faster", "same", "slower", "ambiguous", "none": the names the exports write.
std::string_view to_string(SpeedupVerdict verdict);

}  // namespace kbx::stats
