// Tests of judge_speedup's boundaries: the 2% margin, strict wins and losses, missing intervals.
#include "kbx/stats/speedup_verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kbx::stats {
namespace {

SpeedupVerdict judge(double low, double high, double margin = same_speed_margin) {
  return judge_speedup(true, Interval{low, high}, margin);
}

TEST(SpeedupVerdict, NoPerfIsNoneWhateverTheInterval) {
  EXPECT_EQ(judge_speedup(false, std::nullopt), SpeedupVerdict::none);
  EXPECT_EQ(judge_speedup(false, Interval{2, 3}), SpeedupVerdict::none);
}

TEST(SpeedupVerdict, TimedWithoutAnIntervalIsAmbiguous) {
  EXPECT_EQ(judge_speedup(true, std::nullopt), SpeedupVerdict::ambiguous);
}

TEST(SpeedupVerdict, AnIntervalInsideTheMarginIsTheSameSpeedIncludingItsEdges) {
  EXPECT_EQ(judge(1 / (1 + same_speed_margin), 1 + same_speed_margin), SpeedupVerdict::same);
  EXPECT_EQ(judge(0.99, 1.01), SpeedupVerdict::same);
  EXPECT_EQ(judge(0.96, 1.04), SpeedupVerdict::same);
  EXPECT_EQ(judge(1, 1), SpeedupVerdict::same);
  EXPECT_EQ(judge(1.005, 1.015), SpeedupVerdict::same);  // above 1, but within the margin
  EXPECT_EQ(judge(0.985, 0.995), SpeedupVerdict::same);
}

TEST(SpeedupVerdict, AnIntervalAboveOneThatLeavesTheMarginIsFaster) {
  EXPECT_EQ(judge(1.001, 1.0501), SpeedupVerdict::faster);
  EXPECT_EQ(judge(1.001, std::nextafter(1 + same_speed_margin, 2.0)), SpeedupVerdict::faster);
  EXPECT_EQ(judge(1.5, 2.5), SpeedupVerdict::faster);
  EXPECT_EQ(judge(1, 1.5), SpeedupVerdict::ambiguous);  // low must clear 1, not touch it
}

TEST(SpeedupVerdict, AnIntervalBelowOneThatLeavesTheMarginIsSlower) {
  EXPECT_EQ(judge(std::nextafter(1 / (1 + same_speed_margin), 0.0), 0.999), SpeedupVerdict::slower);
  EXPECT_EQ(judge(0.2, 0.5), SpeedupVerdict::slower);
  EXPECT_EQ(judge(0.5, 1), SpeedupVerdict::ambiguous);  // high must stay below 1
}

TEST(SpeedupVerdict, AnIntervalAcrossOneAndBeyondTheMarginIsAmbiguous) {
  EXPECT_EQ(judge(0.99, 1.06), SpeedupVerdict::ambiguous);
  EXPECT_EQ(judge(0.94, 1.01), SpeedupVerdict::ambiguous);
  EXPECT_EQ(judge(0.5, 2), SpeedupVerdict::ambiguous);
}

TEST(SpeedupVerdict, AZeroMarginLeavesSameOnlyForADegenerateIntervalAtOne) {
  EXPECT_EQ(judge(1, 1, 0), SpeedupVerdict::same);
  EXPECT_EQ(judge(1.001, 1.002, 0), SpeedupVerdict::faster);
  EXPECT_EQ(judge(0.999, 1.001, 0), SpeedupVerdict::ambiguous);
}

TEST(SpeedupVerdict, WidenDividesTheLowEndAndMultipliesTheHighEnd) {
  Interval w = widen({1.2, 1.5}, 0.25);
  EXPECT_DOUBLE_EQ(w.low, 0.96);
  EXPECT_DOUBLE_EQ(w.high, 1.875);
  EXPECT_EQ(judge(w.low, w.high), SpeedupVerdict::ambiguous);
}

TEST(SpeedupVerdict, AHostShareIsLooserThanHostSynchronising) {
  // A 1 ms sample: host-synchronising under 0.5 ms of GPU busy time, a host share under 0.7 ms.
  EXPECT_TRUE(host_synchronising(1.0, 0.4));
  EXPECT_TRUE(holds_host_share(1.0, 0.4));
  EXPECT_FALSE(host_synchronising(1.0, 0.6));
  EXPECT_TRUE(holds_host_share(1.0, 0.6));  // `svd` on an H100: the GPU busy 56%
  EXPECT_FALSE(holds_host_share(1.0, 0.75));
  // Short calls whose launches leave gaps: 50 us of idle at most is neither.
  EXPECT_FALSE(holds_host_share(0.06, 0.015));
  EXPECT_TRUE(holds_host_share(0.08, 0.02));
  EXPECT_FALSE(holds_host_share(std::nan(""), 0.0));
}

TEST(SpeedupVerdict, NamesAreTheExportedStrings) {
  EXPECT_EQ(to_string(SpeedupVerdict::faster), "faster");
  EXPECT_EQ(to_string(SpeedupVerdict::same), "same");
  EXPECT_EQ(to_string(SpeedupVerdict::slower), "slower");
  EXPECT_EQ(to_string(SpeedupVerdict::ambiguous), "ambiguous");
  EXPECT_EQ(to_string(SpeedupVerdict::none), "none");
}

}  // namespace
}  // namespace kbx::stats
