// Tests of the samples' summary: the median's distribution-free interval.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "kbx/stats/rng.h"
#include "kbx/stats/summary.h"

namespace kbx::stats {
namespace {

TEST(MedianInterval, UsesTheOrderStatisticsAroundTheMiddle) {
  std::vector<double> samples(100);
  std::iota(samples.begin(), samples.end(), 1.0);  // median 50.5; ranks 40 and 60 (0-based)
  EXPECT_DOUBLE_EQ(median_ci_rel_sorted(samples), (61.0 - 41.0) / (2 * 50.5));
  EXPECT_DOUBLE_EQ(summarize(samples).median_ci_rel, (61.0 - 41.0) / (2 * 50.5));
}

TEST(MedianInterval, IsInfiniteWithTooFewSamplesOrNoPositiveMedian) {
  std::vector<double> five{1, 2, 3, 4, 5};
  EXPECT_TRUE(std::isinf(median_ci_rel_sorted(five)));
  std::vector<double> zeros(10, 0.0);
  EXPECT_TRUE(std::isinf(median_ci_rel_sorted(zeros)));
  std::vector<double> constant(6, 3.0);
  EXPECT_EQ(median_ci_rel_sorted(constant), 0.0);
}

TEST(MedianInterval, CoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Exponential samples (median ln 2), n = 200: the interval [median -+ half-width] holds ln 2
  // in about 95% of 4000 draws.
  Rng rng(11);
  int covered = 0;
  constexpr int draws = 4000;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> s(200);
    for (double& v : s) {
      v = -std::log(1 - rng.uniform());
    }
    Summary sum = summarize(s);
    double half = sum.median_ci_rel * sum.median;
    covered += std::abs(sum.median - std::log(2.0)) <= half ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(covered) / draws, 0.95, 0.02);
}

}  // namespace
}  // namespace kbx::stats
