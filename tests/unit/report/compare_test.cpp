// Tests of `kbx compare`'s join: spreads, changed outcomes, missing tasks and duplicates.
#include <gtest/gtest.h>

#include "kbx/report/compare.h"

namespace kbx::report {
namespace {

SubmissionRow row(const std::string& file, const std::string& outcome, double speedup,
                  stats::SpeedupVerdict verdict = stats::SpeedupVerdict::none) {
  SubmissionRow r;
  r.speedup_verdict = verdict;
  r.file = file;
  r.outcome = outcome;
  r.perf_ok = speedup > 0;
  r.speedup = speedup;
  return r;
}

NamedRun run(const std::string& name, std::vector<SubmissionRow> rows) {
  NamedRun r;
  r.name = name;
  r.model.rows = std::move(rows);
  r.model.device = "cuda:0 " + name;
  return r;
}

TEST(Compare, JoinsByTaskAndMeasuresTheSpreadOfSpeedups) {
  auto c = compare_runs({run("a", {row("Math/softmax.py", "ok", 1.0), row("Reduce/sum.py", "ok", 0.9)}),
                         run("b", {row("Reduce/sum.py", "ok", 1.2), row("Math/softmax.py", "ok", 1.1)})});
  ASSERT_EQ(c.rows.size(), 2U);
  EXPECT_EQ(c.rows[0].task, "Math/softmax.py");
  EXPECT_DOUBLE_EQ(*c.rows[0].spread, 1.1);
  EXPECT_TRUE(c.rows[0].side_changed);  // 1.0 is not faster, 1.1 is
  EXPECT_DOUBLE_EQ(*c.rows[1].spread, 1.2 / 0.9);
  EXPECT_EQ(c.in_all, 2);
  EXPECT_EQ(c.timed_in_all, 2);
  EXPECT_EQ(c.outcome_changes, 0);
  EXPECT_EQ(c.side_changes, 2);
  EXPECT_DOUBLE_EQ(*c.median_spread, 1.1);  // nearest rank
  EXPECT_DOUBLE_EQ(*c.p95_spread, 1.2 / 0.9);
}

TEST(Compare, ChangedOutcomesAndTasksMissingFromARun) {
  auto c = compare_runs({run("a", {row("A/x.py", "ok", 2.0), row("A/y.py", "ok", 1.5)}),
                         run("b", {row("A/x.py", "incorrect", 0), row("A/z.py", "ok", 1.0)})});
  ASSERT_EQ(c.rows.size(), 3U);
  EXPECT_TRUE(c.rows[0].outcome_changed);
  EXPECT_FALSE(c.rows[0].spread.has_value());
  EXPECT_FALSE(c.rows[1].runs[1].has_value());  // y only in a
  EXPECT_FALSE(c.rows[2].runs[0].has_value());  // z only in b
  EXPECT_EQ(c.in_all, 1);
  EXPECT_EQ(c.timed_in_all, 0);
  EXPECT_EQ(c.outcome_changes, 1);
  EXPECT_FALSE(c.median_spread.has_value());
  std::string text = render_comparison(c, -1);
  EXPECT_NE(text.find("A/x.py"), std::string::npos) << text;
  EXPECT_NE(text.find("outcome"), std::string::npos) << text;
  EXPECT_EQ(text.find("A/y.py"), std::string::npos) << text;  // nothing to compare
}

TEST(Compare, ThePendingOutcomeIsNotAChangeAndTheFirstSubmissionCounts) {
  auto c = compare_runs({run("a", {row("A/x.py", "ok", 1.0), row("A/x.py", "incorrect", 0)}),
                         run("b", {row("A/x.py", "pending", 0)})});
  ASSERT_EQ(c.rows.size(), 1U);
  EXPECT_EQ(c.rows[0].runs[0]->submissions, 2);
  EXPECT_EQ(c.rows[0].runs[0]->outcome, "ok");
  EXPECT_FALSE(c.rows[0].outcome_changed);
  auto j = comparison_json(c);
  EXPECT_EQ(j["runs"][0]["labels"], Json::object());
  EXPECT_EQ(j["rows"][0]["runs"][0]["submissions"], 2);
  EXPECT_TRUE(j["rows"][0]["spread"].is_null());
  EXPECT_EQ(j["runs"][1]["device"], "cuda:0 b");
}

TEST(Compare, NamesEachRunsLabels) {
  auto a = run("a", {row("A/x.py", "ok", 1.0)});
  a.model.labels = {{"method", "one-shot"}, {"round", "0"}};
  auto c = compare_runs({a, run("b", {row("A/x.py", "ok", 1.0)})});
  std::string text = render_comparison(c, -1);
  EXPECT_NE(text.find("run 1: a (cuda:0 a) method=one-shot round=0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("run 2: b (cuda:0 b)\n"), std::string::npos) << text;
  EXPECT_EQ(comparison_json(c)["runs"][0]["labels"]["method"], "one-shot");
}

TEST(Compare, TopLimitsTheListedTasksLargestSpreadFirst) {
  auto c = compare_runs({run("a", {row("A/x.py", "ok", 1.0), row("A/y.py", "ok", 1.0)}),
                         run("b", {row("A/x.py", "ok", 1.01), row("A/y.py", "ok", 1.5)})});
  std::string text = render_comparison(c, 1);
  EXPECT_NE(text.find("A/y.py"), std::string::npos) << text;
  EXPECT_EQ(text.find("A/x.py"), std::string::npos) << text;
}

TEST(Compare, AChangedVerdictIsListedBeforeLargerSpreads) {
  using V = stats::SpeedupVerdict;
  auto c = compare_runs({run("a", {row("A/x.py", "ok", 1.05, V::faster), row("A/y.py", "ok", 1.0, V::same)}),
                         run("b", {row("A/x.py", "ok", 1.04, V::ambiguous), row("A/y.py", "ok", 1.3, V::same)})});
  EXPECT_TRUE(c.rows[0].verdict_changed);
  EXPECT_FALSE(c.rows[1].verdict_changed);
  EXPECT_EQ(c.verdict_changes, 1);
  std::string text = render_comparison(c, 1);
  EXPECT_NE(text.find("A/x.py"), std::string::npos) << text;
  EXPECT_NE(text.find("1.050x faster"), std::string::npos) << text;
  EXPECT_EQ(comparison_json(c)["rows"][0]["runs"][1]["speedup_verdict"], "ambiguous");
}

}  // namespace
}  // namespace kbx::report
