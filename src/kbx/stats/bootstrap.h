// Bootstrap confidence intervals of a task's speedup from the raw timing samples.
#pragma once

#include <algorithm>
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

/// Walker's alias method (Vose's construction): outcome i of 0..m-1 with probability
/// weights[i] / sum(weights), in O(1) with one uniform per draw.
class AliasTable {
 public:
  /// `weights`: non-negative and not all zero. O(m) time and memory.
  explicit AliasTable(std::span<const double> weights);

  [[nodiscard]] std::size_t draw(Rng& rng) const {
    double x = rng.uniform() * static_cast<double>(keep_.size());
    auto bucket = std::min(static_cast<std::size_t>(x), keep_.size() - 1);
    std::size_t other = alias_[bucket];  // read either way: a select, not a branch
    return x - static_cast<double>(bucket) < keep_[bucket] ? bucket : other;
  }

 private:
  std::vector<double> keep_;  ///< a draw landing in bucket i keeps i with this probability
  std::vector<std::size_t> alias_;  ///< else it takes alias_[i]
};

/// The median of a bootstrap resample (n draws with replacement) of n sorted samples, drawn
/// without building or sorting the resample. The k-th smallest of n draws from positions 1..n is
/// position i with probability P(Bin(n, i/n) >= k) - P(Bin(n, (i-1)/n) >= k). For even n the
/// upper middle draw is the same position with the probability that two or more draws fell there
/// given the lower one did, else the least of the n/2 draws spread uniformly over the positions
/// above. Both come from one alias table built per n (the upper draw's first offsets in it, the
/// rare rest walked), so a draw costs about one uniform. Exact: the same distribution as sorting
/// every resample (docs/metrics.md).
class ResampledMedian {
 public:
  /// The upper draw 0..6 positions above the lower one from the table, 7 and more walked (under
  /// 0.2% of draws at n = 100).
  static constexpr std::size_t default_even_slots = 8;

  /// The tables for samples of size n (n >= 1). O(n) memory; O(n sqrt n) time. `even_slots`
  /// (>= 2): outcomes per position for even n, the upper draw 0 .. even_slots - 2 positions above
  /// the lower one, or further (walked); any value gives the same distribution (tests use 2).
  explicit ResampledMedian(std::size_t n, std::size_t even_slots = default_even_slots);

  /// The median of one resample of `sorted` (size n, ascending), the way summarize() takes a
  /// median: the middle value, or the mean of the two middle values.
  [[nodiscard]] double draw(std::span<const double> sorted, Rng& rng) const;

  [[nodiscard]] std::size_t size() const { return n_; }

 private:
  static AliasTable middle_table(std::size_t n, std::size_t slots);
  [[nodiscard]] std::size_t walk_up(std::size_t lower, std::size_t offset, Rng& rng) const;

  std::size_t n_ = 0;
  std::size_t k_ = 0;      ///< 1-based rank of the lower middle draw: (n + 1) / 2
  std::size_t slots_ = 1;  ///< outcomes per position: 1 for odd n, even_slots for even n
  /// Outcome lower * slots_ + offset: the lower middle draw at `lower` (0-based), the upper one
  /// `offset` positions above it (the last slot: that many or more).
  AliasTable middle_;
  /// Even n: first_of_[m]: P(the least of the n - k draws spread over m positions is the first
  /// of them) = 1 - (1 - 1/m)^(n - k).
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
