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

  [[nodiscard]] double iqr() const { return q3 - q1; }
};

/// Percentile p in [0, 1] by linear interpolation between closest ranks (numpy's default).
/// `sorted` must be sorted ascending and non-empty.
double percentile_sorted(std::span<const double> sorted, double p);

/// Summary of the samples; an empty input gives a Summary with n == 0.
Summary summarize(std::span<const double> samples);

/// Geometric mean of positive values; 0 for an empty input.
double geometric_mean(std::span<const double> values);

/// Arithmetic mean; 0 for an empty input.
double arithmetic_mean(std::span<const double> values);

}  // namespace kbx::stats
