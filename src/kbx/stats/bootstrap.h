// Bootstrap confidence intervals of a task's speedup from the raw timing samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "kbx/stats/rng.h"

namespace kbx::stats {

/// A two-sided interval, low <= high.
struct Interval {
  double low = 0;
  double high = 0;
};

/// The median of a bootstrap resample (n draws with replacement) of n sorted samples, drawn
/// without building or sorting the resample. The k-th smallest of n draws from positions 1..n is
/// position i with probability P(Bin(n, i/n) >= k) - P(Bin(n, (i-1)/n) >= k); that table is built
/// once per n. For even n the upper middle draw is the same position with the probability that two
/// or more draws fell there given the lower one did, else the lower position plus the least of
/// the n/2 draws above it (walked up one position at a time). Exact: the same distribution as sorting each resample (docs/metrics.md).
class ResampledMedian {
 public:
  /// The tables for samples of size n (n >= 1). O(n) memory; O(n sqrt n) time.
  explicit ResampledMedian(std::size_t n);

  /// The median of one resample of `sorted` (size n, ascending), the way summarize() takes a
  /// median: the middle value, or the mean of the two middle values.
  [[nodiscard]] double draw(std::span<const double> sorted, Rng& rng) const;

  [[nodiscard]] std::size_t size() const { return n_; }

 private:
  [[nodiscard]] std::size_t lower_position(Rng& rng) const;  // 0-based
  [[nodiscard]] std::size_t upper_position(std::size_t lower, Rng& rng) const;

  std::size_t n_ = 0;
  std::size_t k_ = 0;           ///< 1-based rank of the lower middle draw
  std::vector<double> cdf_;     ///< cdf_[i]: P(lower middle position <= i), 0-based i
  std::vector<std::size_t> guide_;  ///< guide_[g]: the first i with cdf_[i] > g / n (search start)
  std::vector<double> stay_;    ///< even n: P(upper middle position == i | lower one is i)
  /// even n: first_of_[m]: P(the least of the n - k draws above the lower middle one is the
  /// first of the m positions there) = 1 - (1 - 1/m)^(n - k)
  std::vector<double> first_of_;
};

/// One perf workload's raw samples (ms), the candidate's and the reference's.
struct WorkloadSamples {
  std::span<const double> candidate;
  std::span<const double> reference;
};

/// How many resamples, and the interval's coverage.
struct BootstrapOptions {
  int replicates = 2000;
  double confidence = 0.95;  ///< a percentile interval from (1 - c) / 2 to (1 + c) / 2
};

/// Percentile bootstrap intervals of task speedups. A task's speedup is the sum over workloads of
/// the reference's medians over the same sum for the candidate (KernelBench-X's, the report's
/// point estimate); a replicate resamples every workload's candidate and reference samples
/// independently (with replacement, same sizes) and takes the same ratio of its medians.
/// Keeps one ResampledMedian per sample size across calls; not thread-safe.
class SpeedupBootstrap {
 public:
  explicit SpeedupBootstrap(BootstrapOptions options = {});

  /// The interval, or nullopt when there is nothing to resample: no workloads, a side with fewer
  /// than two samples, or a sample that is not a positive finite time. The same samples and seed
  /// give the same interval (seed: seed_for(task key)).
  std::optional<Interval> interval(std::span<const WorkloadSamples> workloads, std::uint64_t seed);

 private:
  const ResampledMedian& median_of(std::size_t n);
  void add_medians(std::span<const double> samples, Rng& rng, std::vector<double>& sums);

  BootstrapOptions options_;
  std::map<std::size_t, ResampledMedian> medians_;
  std::vector<double> sorted_;
  std::vector<double> candidate_sums_;
  std::vector<double> reference_sums_;
};

/// P(X >= k) for X ~ Binomial(n, p), p in [0, 1].
double binomial_upper_tail(std::size_t n, double p, std::size_t k);

}  // namespace kbx::stats
