// Tests of `kbx doctor --timing`'s judgement: parsing timer-check.jsonl, the tolerance, the floor
// below which calls are not judged, and the order of the table.
#include "kbx/run/timer_check.h"

#include <gtest/gtest.h>

namespace kbx::run {
namespace {

TEST(TimerCheck, ParsesRowsAndSkipsBlankLines) {
  auto rows = parse_timer_check(
      "{\"task\":\"Math/a.py\",\"workload\":1,\"gpu\":0,\"kbx_ms\":0.2,\"do_bench_ms\":0.25}\n\n");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows.value().size(), 1U);
  EXPECT_EQ(rows.value()[0].workload, 1);
  EXPECT_DOUBLE_EQ(rows.value()[0].do_bench_ms, 0.25);
}

TEST(TimerCheck, ALineWithoutBothPositiveMediansIsAnErrorNamingIt) {
  auto rows = parse_timer_check(
      "{\"task\":\"a\",\"kbx_ms\":1,\"do_bench_ms\":1}\n{\"task\":\"b\",\"kbx_ms\":0,\"do_bench_ms\":1}\n");
  ASSERT_FALSE(rows);
  EXPECT_NE(std::string(rows.error().what()).find("line 2"), std::string::npos);
}

TEST(TimerCheck, JudgesOnlyCallsOverTheFloorAndSortsByDifference) {
  std::vector<TimerCheckRow> rows{{"a", 0, 0, 1.00, 1.02},   // 2%: within 3%
                                  {"b", 0, 0, 1.10, 1.00},   // 10%: outside
                                  {"c", 0, 0, 0.004, 0.008}, // 4 us: not judged
                                  {"d", 0, 0, 0.50, 0.50}};
  auto v = judge_timer_check(rows, 0.03, 0.05);
  EXPECT_EQ(v.judged, 3);
  EXPECT_EQ(v.within, 2);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.rows.front().task, "c");  // the largest difference first, judged or not
  EXPECT_NEAR(v.median_difference, 1 - 1.00 / 1.02, 1e-12);
  std::string table = render_timer_check(v, 0.03, 0.05, -1);
  EXPECT_NE(table.find("2 of 3 workloads of at least 50 us within 3%"), std::string::npos);
  EXPECT_NE(table.find("OUTSIDE"), std::string::npos);
  EXPECT_NE(table.find("short"), std::string::npos);
  rows.erase(rows.begin() + 1);
  EXPECT_TRUE(judge_timer_check(rows, 0.03, 0.05).ok());
  EXPECT_FALSE(judge_timer_check({}, 0.03, 0.05).ok());  // nothing judged is not a pass
}

}  // namespace
}  // namespace kbx::run
