// Summary statistics of raw timing samples; computed at report time from stored samples.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace kbx::stats {

/// Centre and spread of one set of samples (all in the samples' unit, e.g. ms).
struct Summary {
  std::size_t n = 0;
  double median = 0;
  double q1 = 0;   ///< 25th percentile
  double q3 = 0;   ///< 75th percentile
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1)
  double cv = 0;      ///< stddev / mean (0 when mean is 0)
  /// Relative half-width of the median's distribution-free 95% confidence interval
  /// (median_ci_rel); infinity below 6 samples.
  double median_ci_rel = 0;

  [[nodiscard]] double iqr() const { return q3 - q1; }
};

/// Percentile p in [0, 1] by linear interpolation between closest ranks (numpy's default).
/// `sorted` must be sorted ascending and non-empty.
double percentile_sorted(std::span<const double> sorted, double p);

/// Summary of the samples; an empty input gives a Summary with n == 0.
Summary summarize(std::span<const double> samples);

/// The default target of adaptive sampling: a workload's samples stop once the median's 95%
/// interval is within 1% of it (TimingSettings::ci_target).
inline constexpr double kMedianCiTarget = 0.01;

/// Relative half-width of the distribution-free 95% confidence interval of the median: the
/// order statistics at 0-based ranks floor(n/2 - z sqrt(n)/2) and ceil(n/2 + z sqrt(n)/2),
/// clamped to the samples, half their distance over the median. Infinity with fewer than 6
/// samples or a median that is not positive. The timing worker stops adaptive sampling by the
/// same figure (python/kbx_worker/timing.py median_ci_rel). `sorted` ascending.
double median_ci_rel_sorted(std::span<const double> sorted);

/// Geometric mean of positive values; 0 for an empty input.
double geometric_mean(std::span<const double> values);

/// Arithmetic mean; 0 for an empty input.
double arithmetic_mean(std::span<const double> values);

}  // namespace kbx::stats
