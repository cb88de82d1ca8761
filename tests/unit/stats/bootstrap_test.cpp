// Tests of the bootstrap: resampled medians against the naive sort-per-resample oracle (exact
// distributions for small n, Monte-Carlo for larger), and known-answer speedup intervals.
#include "kbx/stats/bootstrap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "kbx/stats/speedup_verdict.h"
#include "kbx/stats/summary.h"

namespace kbx::stats {
namespace {

// The oracle: n positions drawn with replacement, the values sorted, the median as summarize().
double naive_resampled_median(std::span<const double> samples, Rng& rng) {
  std::vector<double> resample(samples.size());
  for (double& v : resample) {
    v = samples[static_cast<std::size_t>(rng.uniform() * static_cast<double>(samples.size()))];
  }
  std::sort(resample.begin(), resample.end());
  return percentile_sorted(resample, 0.5);
}

// The oracle's interval: every replicate resamples and sorts every side of every workload.
Interval naive_interval(std::span<const WorkloadSamples> workloads, int replicates,
                        std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> ratios;
  for (int b = 0; b < replicates; ++b) {
    double candidate = 0;
    double reference = 0;
    for (const WorkloadSamples& w : workloads) {
      candidate += naive_resampled_median(w.candidate, rng);
      reference += naive_resampled_median(w.reference, rng);
    }
    ratios.push_back(reference / candidate);
  }
  std::sort(ratios.begin(), ratios.end());
  return {percentile_sorted(ratios, 0.025), percentile_sorted(ratios, 0.975)};
}

// n samples around `centre`, spread uniformly by +-spread (relative), in random order.
std::vector<double> noisy(double centre, double spread, std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> out(n);
  for (double& v : out) {
    v = centre * (1 + spread * (2 * rng.uniform() - 1));
  }
  return out;
}

// Every resample of positions 0..n-1 (n^n of them), each median's exact probability.
std::map<double, double> exact_median_distribution(std::size_t n) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = static_cast<double>(i);
  }
  std::size_t total = 1;
  for (std::size_t i = 0; i < n; ++i) {
    total *= n;
  }
  std::map<double, double> probability;
  std::vector<double> resample(n);
  for (std::size_t code = 0; code < total; ++code) {
    std::size_t rest = code;
    for (double& v : resample) {
      v = values[rest % n];
      rest /= n;
    }
    std::sort(resample.begin(), resample.end());
    probability[percentile_sorted(resample, 0.5)] += 1.0 / static_cast<double>(total);
  }
  return probability;
}

// Largest distance between the empirical distribution functions of two samples.
double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double worst = 0;
  for (double x : a) {
    auto fa = static_cast<double>(std::upper_bound(a.begin(), a.end(), x) - a.begin());
    auto fb = static_cast<double>(std::upper_bound(b.begin(), b.end(), x) - b.begin());
    worst = std::max(worst, std::abs(fa / a.size() - fb / b.size()));
  }
  return worst;
}

TEST(BinomialUpperTail, MatchesADirectSumOfTheProbabilities) {
  for (std::size_t n : {1U, 2U, 7U, 30U}) {
    for (double p : {0.0, 0.05, 0.3, 0.5, 0.9, 1.0}) {
      for (std::size_t k = 0; k <= n + 1; ++k) {
        double direct = 0;
        for (std::size_t j = k; j <= n; ++j) {
          direct += std::tgamma(n + 1.0) / std::tgamma(j + 1.0) / std::tgamma(n - j + 1.0) *
                    std::pow(p, j) * std::pow(1 - p, n - j);
        }
        EXPECT_NEAR(binomial_upper_tail(n, p, k), direct, 1e-13) << n << " " << p << " " << k;
      }
    }
  }
}

TEST(ResampledMedian, HasTheExactDistributionOfSortingEveryResampleForSmallSizes) {
  constexpr int draws = 400'000;
  for (std::size_t n = 1; n <= 7; ++n) {
    std::vector<double> sorted(n);
    for (std::size_t i = 0; i < n; ++i) {
      sorted[i] = static_cast<double>(i);
    }
    ResampledMedian median(n);
    Rng rng(n);
    std::map<double, int> seen;
    for (int i = 0; i < draws; ++i) {
      seen[median.draw(sorted, rng)] += 1;
    }
    for (const auto& [value, p] : exact_median_distribution(n)) {
      double tolerance = 5 * std::sqrt(p * (1 - p) / draws) + 1e-12;
      EXPECT_NEAR(static_cast<double>(seen[value]) / draws, p, tolerance)
          << "n " << n << " median " << value;
      seen.erase(value);
    }
    EXPECT_TRUE(seen.empty()) << "n " << n << ": a median no resample can have";
  }
}

TEST(ResampledMedian, MatchesTheNaiveSortPerResampleDistributionForTimingSizedSamples) {
  constexpr int draws = 40'000;
  for (std::size_t n : {10U, 11U, 100U, 101U}) {
    std::vector<double> samples = noisy(1.0, 0.3, n, 100 + n);
    for (std::size_t i = 0; i < n; i += 7) {
      samples[i] = samples[(i + 1) % n];  // ties, as quantised timers give
    }
    std::sort(samples.begin(), samples.end());
    ResampledMedian median(n);
    Rng fast_rng(1);
    Rng naive_rng(2);
    std::vector<double> fast, naive;
    for (int i = 0; i < draws; ++i) {
      fast.push_back(median.draw(samples, fast_rng));
      naive.push_back(naive_resampled_median(samples, naive_rng));
    }
    // Two-sample Kolmogorov-Smirnov at alpha 0.001: 1.95 * sqrt(2 / draws).
    EXPECT_LT(ks_distance(fast, naive), 1.95 * std::sqrt(2.0 / draws)) << "n " << n;
    double sd = summarize(naive).stddev;
    EXPECT_NEAR(arithmetic_mean(fast), arithmetic_mean(naive), 5 * sd * std::sqrt(2.0 / draws));
    EXPECT_NEAR(summarize(fast).stddev, sd, 0.05 * sd);
  }
}

// Samples 2^0 .. 2^(n-1): a median (2^lower + 2^upper) / 2 tells both middle positions apart.
std::pair<int, int> middle_positions(double median) {
  int upper = static_cast<int>(std::floor(std::log2(2 * median)));
  double rest = 2 * median - std::ldexp(1.0, upper);
  return rest == 0 ? std::pair{upper - 1, upper - 1} : std::pair{std::ilogb(rest), upper};
}

TEST(ResampledMedian, DrawsBothMiddlePositionsJointlyAsSortingDoesIncludingFarApartOnes) {
  constexpr int draws = 400'000;
  struct Case {
    std::size_t n;
    std::size_t slots;  // 2: every upper draw above the lower one is walked
  };
  for (Case c : {Case{8, 2}, Case{12, 2}, Case{20, 2}, Case{8, 8}, Case{20, 8}, Case{20, 5}}) {
    std::size_t n = c.n;
    std::vector<double> sorted(n);
    for (std::size_t i = 0; i < n; ++i) {
      sorted[i] = std::ldexp(1.0, static_cast<int>(i));
    }
    ResampledMedian median(n, c.slots);
    Rng fast_rng(3);
    Rng naive_rng(4);
    std::map<std::pair<int, int>, int> fast, naive;
    for (int i = 0; i < draws; ++i) {
      fast[middle_positions(median.draw(sorted, fast_rng))] += 1;
      naive[middle_positions(naive_resampled_median(sorted, naive_rng))] += 1;
    }
    std::map<int, double> fast_gap, naive_gap;  // upper - lower
    for (const auto& [pair, count] : naive) {
      double p = static_cast<double>(count) / draws;
      double q = static_cast<double>(fast[pair]) / draws;
      EXPECT_NEAR(q, p, 5 * std::sqrt(2 * p * (1 - p) / draws) + 3.0 / draws)
          << "n " << n << " slots " << c.slots << " positions " << pair.first << ", "
          << pair.second;
      naive_gap[pair.second - pair.first] += p;
      fast_gap[pair.second - pair.first] += q;
    }
    for (const auto& [pair, count] : fast) {
      EXPECT_TRUE(naive.count(pair) || count < 5) << "n " << n << " " << pair.first << ", "
                                                  << pair.second << " drawn " << count;
    }
    for (int gap = 1; gap < static_cast<int>(n); ++gap) {
      double p = naive_gap[gap];
      EXPECT_NEAR(fast_gap[gap], p, 5 * std::sqrt(2 * p * (1 - p) / draws) + 3.0 / draws)
          << "n " << n << " slots " << c.slots << " gap " << gap;
    }
  }
}

TEST(SpeedupBootstrap, AgreesWithTheNaiveBootstrapOnANoisyTask) {
  std::vector<std::vector<double>> data = {noisy(1.0, 0.2, 30, 1), noisy(1.1, 0.2, 30, 2),
                                           noisy(5.0, 0.1, 21, 3), noisy(4.0, 0.3, 21, 4),
                                           noisy(0.2, 0.5, 50, 5), noisy(0.3, 0.5, 48, 6)};
  std::vector<WorkloadSamples> workloads = {
      {data[0], data[1]}, {data[2], data[3]}, {data[4], data[5]}};
  constexpr int replicates = 20'000;
  auto fast = SpeedupBootstrap({replicates, 0.95}).interval(workloads, 7);
  Interval naive = naive_interval(workloads, replicates, 8);
  ASSERT_TRUE(fast);
  double width = naive.high - naive.low;
  EXPECT_NEAR(fast->low, naive.low, 0.05 * width);
  EXPECT_NEAR(fast->high, naive.high, 0.05 * width);
}

TEST(SpeedupBootstrap, IdenticalSamplesGiveADegenerateIntervalAtTheRatio) {
  std::vector<double> c1(10, 2.0), r1(10, 4.0), c2(7, 1.0), r2(7, 3.0);
  std::vector<WorkloadSamples> workloads = {{c1, r1}, {c2, r2}};
  auto ci = SpeedupBootstrap().interval(workloads, 1);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->low, 7.0 / 3.0);  // (4 + 3) / (2 + 1): a ratio of sums, not a mean ratio
  EXPECT_DOUBLE_EQ(ci->high, 7.0 / 3.0);
  EXPECT_EQ(judge_speedup(true, ci), SpeedupVerdict::faster);
}

TEST(SpeedupBootstrap, EqualConstantSamplesAreTheSameSpeed) {
  std::vector<double> same(20, 0.125);
  std::vector<WorkloadSamples> workloads = {{same, same}};
  auto ci = SpeedupBootstrap().interval(workloads, 1);
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->low, 1.0);
  EXPECT_EQ(ci->high, 1.0);
  EXPECT_EQ(judge_speedup(true, ci), SpeedupVerdict::same);
}

TEST(SpeedupBootstrap, ClearlySeparatedSamplesAreFasterOrSlower) {
  auto fast = noisy(1.0, 0.05, 50, 1);
  auto slow = noisy(1.3, 0.05, 50, 2);
  std::vector<WorkloadSamples> win = {{fast, slow}};
  std::vector<WorkloadSamples> loss = {{slow, fast}};
  SpeedupBootstrap bootstrap;
  auto up = bootstrap.interval(win, 1);
  auto down = bootstrap.interval(loss, 1);
  ASSERT_TRUE(up && down);
  EXPECT_GT(up->low, 1.2);
  EXPECT_LT(down->high, 1 / 1.2);
  EXPECT_EQ(judge_speedup(true, up), SpeedupVerdict::faster);
  EXPECT_EQ(judge_speedup(true, down), SpeedupVerdict::slower);
}

TEST(SpeedupBootstrap, OverlappingNoisySamplesAreAmbiguous) {
  auto candidate = noisy(1.0, 0.4, 15, 1);
  auto reference = noisy(1.05, 0.4, 15, 2);
  std::vector<WorkloadSamples> workloads = {{candidate, reference}};
  auto ci = SpeedupBootstrap().interval(workloads, 1);
  ASSERT_TRUE(ci);
  EXPECT_LT(ci->low, 1.0);
  EXPECT_GT(ci->high, 1.02);
  EXPECT_EQ(judge_speedup(true, ci), SpeedupVerdict::ambiguous);
}

TEST(SpeedupBootstrap, ThePointEstimateLiesInsideTheInterval) {
  auto c = noisy(2.0, 0.2, 40, 1);
  auto r = noisy(2.4, 0.2, 40, 2);
  std::vector<WorkloadSamples> workloads = {{c, r}};
  auto ci = SpeedupBootstrap().interval(workloads, 3);
  ASSERT_TRUE(ci);
  double point = summarize(r).median / summarize(c).median;
  EXPECT_LT(ci->low, point);
  EXPECT_GT(ci->high, point);
}

TEST(SpeedupBootstrap, TheSameSamplesAndSeedGiveTheSameIntervalInAFreshOrAReusedBootstrap) {
  auto c = noisy(1.0, 0.3, 25, 1);
  auto r = noisy(1.2, 0.3, 26, 2);
  std::vector<WorkloadSamples> workloads = {{c, r}};
  SpeedupBootstrap reused;
  auto first = reused.interval(workloads, 11);
  auto again = reused.interval(workloads, 11);
  auto fresh = SpeedupBootstrap().interval(workloads, 11);
  auto other_seed = reused.interval(workloads, 12);
  ASSERT_TRUE(first && again && fresh && other_seed);
  EXPECT_EQ(first->low, again->low);
  EXPECT_EQ(first->high, again->high);
  EXPECT_EQ(first->low, fresh->low);
  EXPECT_EQ(first->high, fresh->high);
  EXPECT_NE(first->low, other_seed->low);
}

TEST(SpeedupBootstrap, GivesNoIntervalWithoutTwoPositiveFiniteSamplesPerSide) {
  std::vector<double> one = {1.0};
  std::vector<double> two = {1.0, 1.1};
  std::vector<double> zero = {1.0, 0.0};
  std::vector<double> infinite = {1.0, std::numeric_limits<double>::infinity()};
  SpeedupBootstrap bootstrap;
  EXPECT_FALSE(bootstrap.interval({}, 1));
  for (const auto& bad : {one, zero, infinite}) {
    std::vector<WorkloadSamples> as_candidate = {{two, two}, {bad, two}};
    std::vector<WorkloadSamples> as_reference = {{two, bad}};
    EXPECT_FALSE(bootstrap.interval(as_candidate, 1));
    EXPECT_FALSE(bootstrap.interval(as_reference, 1));
  }
  std::vector<WorkloadSamples> single = {{one, one}};
  EXPECT_EQ(judge_speedup(true, bootstrap.interval(single, 1)), SpeedupVerdict::ambiguous);
}

}  // namespace
}  // namespace kbx::stats
