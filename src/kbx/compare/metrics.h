// Error metrics for the metrics contract: cosine similarity, relative L1 and relative RMSE.
#pragma once

#include <cstdint>
#include <string>

#include "kbx/compare/tolerance.h"

namespace kbx::compare {

/// Running sums over the parts (real values; real and imaginary parts of complex values) where
/// both candidate c and reference r are finite. Plain value; add with +=.
struct MetricSums {
  double dot = 0;       ///< sum c * r
  double cand_sq = 0;   ///< sum c^2
  double ref_sq = 0;    ///< sum r^2
  double diff_sq = 0;   ///< sum (c - r)^2
  double diff_abs = 0;  ///< sum |c - r|
  double ref_abs = 0;   ///< sum |r|
  std::int64_t parts = 0;

  MetricSums& operator+=(const MetricSums& other);
};

/// The three figures of docs/suite-format.md ("Precision contracts").
struct Metrics {
  double cosine_sim = 1;
  double l1_relative = 0;
  double rmse = 0;  ///< RMS(c - r) / RMS(r)
  double rmse_absolute = 0;  ///< RMS(c - r): KernelBench-X's own RMSE (--rules kernelbenchx)
};

/// Metrics from sums. Conventions where the formulas would divide by zero:
/// - candidate equal to the reference on every finite part (including an empty tensor, or one
///   whose every element is a matched NaN/Inf): perfect (1, 0, 0), whatever the rounding;
/// - reference all zero, candidate not: (0, +Inf, +Inf), which misses every bound;
/// - candidate all zero, reference not: cosine_sim 0 (l1_relative and rmse are then 1).
/// cosine_sim is clamped to [-1, 1] against rounding.
Metrics metrics_from(const MetricSums& sums);

/// True when every bound present in `thresholds` holds.
bool meets(const Metrics& metrics, const MetricThresholds& thresholds);

/// The bounds missed, for a detail message: "cosine_sim 0.9123 < 0.95; rmse 0.1204 > 0.1".
std::string describe_misses(const Metrics& metrics, const MetricThresholds& thresholds);

}  // namespace kbx::compare
