// Tests of the terminal summary: the per-category table, the outcome line and the input errors.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "kbx/report/exports.h"

namespace kbx::report {
namespace {

// Totals as the table shows them: pass counts, the geometric mean, and `faster` interval wins
// (the other timed rows ambiguous, the untimed none).
Totals totals(int total, int call_pass, int exe_pass, int perf_pass, double geomean, int faster) {
  Totals t;
  t.total = total;
  t.call_pass = call_pass;
  t.exe_pass = exe_pass;
  t.perf_pass = perf_pass;
  t.avg_speedup_global = t.avg_speedup_per_task = t.geomean_speedup = geomean;
  t.faster_than_reference = faster;
  t.verdicts.faster = faster;
  t.verdicts.ambiguous = perf_pass - faster;
  t.verdicts.none = total - perf_pass;
  t.fast_1_pass = faster;
  return t;
}

ReportModel sample_model() {
  ReportModel m;
  m.categories = {{"Conv", totals(2, 1, 0, 0, 0, 0)}, {"Math", totals(1, 1, 1, 1, 14.0 / 6, 1)}};
  m.overall = totals(3, 2, 1, 1, 14.0 / 6, 1);
  m.outcomes = {{"ok", 1}, {"incorrect", 1}, {"pending", 1}};
  m.input_errors = {{1, "preds.jsonl:7", "not JSON"}};
  m.device = "cuda:0 NVIDIA H200";
  return m;
}

std::string strip_ansi(const std::string& text) {
  return std::regex_replace(text, std::regex("\x1b\\[[0-9;]*m"), "");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

TEST(TerminalSummary, ShowsOneRowPerCategoryATotalRowOutcomesAndInputErrors) {
  EXPECT_EQ(render_terminal_summary(sample_model(), false),
            "Device: cuda:0 NVIDIA H200\n"
            "Category  Tasks      Call       Exe      Perf  Speedup  Faster\n"
            "--------------------------------------------------------------\n"
            "Conv          2   1 (50%)    0 (0%)    0 (0%)        -       0\n"
            "Math          1  1 (100%)  1 (100%)  1 (100%)    2.33x       1\n"
            "--------------------------------------------------------------\n"
            "TOTAL         3   2 (67%)   1 (33%)   1 (33%)    2.33x       1\n"
            "Speedups (95% interval; same: within 5%): faster 1, same 0, slower 0, ambiguous 0\n"
            "Outcomes: ok 1, incorrect 1, pending 1\n"
            "Input errors (1):\n"
            "  preds.jsonl:7: not JSON\n");
}

TEST(TerminalSummary, TheFasterColumnCountsIntervalWinsNotPointEstimatesAboveOne) {
  ReportModel m = sample_model();
  m.overall.faster_than_reference = 3;  // point estimates above 1
  m.overall.perf_pass = 3;
  m.overall.verdicts = {1, 1, 0, 1, 0};  // only one interval clears 1
  std::vector<std::string> lines = lines_of(render_terminal_summary(m, false));
  EXPECT_EQ(lines.at(6), "TOTAL         3   2 (67%)   1 (33%)  3 (100%)    2.33x       1");
  EXPECT_EQ(lines.at(7),
            "Speedups (95% interval; same: within 5%): faster 1, same 1, slower 0, ambiguous 1");
}

TEST(TerminalSummary, LeavesOutTheSpeedupLineWhenNothingWasTimed) {
  ReportModel m = sample_model();
  m.overall = totals(3, 2, 1, 0, 0, 0);
  EXPECT_EQ(render_terminal_summary(m, false).find("Speedups"), std::string::npos);
}

TEST(TerminalSummary, NamesTheRunsLabelsUnderTheDevice) {
  ReportModel m = sample_model();
  m.labels = {{"round", "2"}, {"method", "reflexion"}};
  auto lines = lines_of(render_terminal_summary(m, false));
  ASSERT_GE(lines.size(), 2U);
  EXPECT_EQ(lines[0], "Device: cuda:0 NVIDIA H200");
  EXPECT_EQ(lines[1], "Run: method=reflexion round=2");
}

TEST(TerminalSummary, LeavesOutTheDeviceAndInputErrorsWhenThereAreNone) {
  ReportModel m = sample_model();
  m.device.clear();
  m.input_errors.clear();
  std::string text = render_terminal_summary(m, false);
  EXPECT_EQ(text.rfind("Category", 0), 0U) << text;
  EXPECT_EQ(text.find("Input errors"), std::string::npos);
  EXPECT_EQ(lines_of(text).back(), "Outcomes: ok 1, incorrect 1, pending 1");
}

TEST(TerminalSummary, AnEmptyModelStillPrintsATotalRow) {
  EXPECT_EQ(render_terminal_summary(ReportModel{}, false),
            "Category  Tasks  Call  Exe  Perf  Speedup  Faster\n"
            "-------------------------------------------------\n"
            "TOTAL         0     0    0     0        -       0\n"
            "Outcomes: none\n");
}

TEST(TerminalSummary, UsesNoEscapeCodesWithoutColor) {
  EXPECT_EQ(render_terminal_summary(sample_model(), false).find('\x1b'), std::string::npos);
}

TEST(TerminalSummary, ColorsHighRatesGreenAndLowRatesRedWithoutChangingTheLayout) {
  std::string colored = render_terminal_summary(sample_model(), true);
  EXPECT_NE(colored.find("\x1b[32m1 (50%)\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(colored.find("\x1b[31m0 (0%)\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(colored.find("\x1b[31m1 (33%)\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(colored.find("\x1b[32m2.33x\x1b[0m"), std::string::npos) << colored;
  EXPECT_EQ(strip_ansi(colored), render_terminal_summary(sample_model(), false));
}

TEST(TerminalSummary, ASpeedupBelowOneIsRed) {
  ReportModel m = sample_model();
  m.overall.geomean_speedup = 0.5;
  EXPECT_NE(render_terminal_summary(m, true).find("\x1b[31m0.50x\x1b[0m"), std::string::npos);
}

TEST(TerminalSummary, LongNamesAndMessagesAreClippedToOneHundredColumns) {
  ReportModel m = sample_model();
  m.categories.push_back({std::string(60, 'C'), totals(1234, 1234, 1000, 999, 1, 0)});
  m.overall = totals(12345, 12345, 12345, 12345, 1234.5, 12345);
  m.input_errors.push_back({1, "preds.jsonl:8", std::string(300, 'm') + "\nsecond line"});
  std::string text = render_terminal_summary(m, false);
  for (const std::string& line : lines_of(text)) {
    EXPECT_LE(line.size(), 100U) << line;
  }
  EXPECT_NE(text.find(std::string(21, 'C') + "..."), std::string::npos) << text;
  EXPECT_EQ(text.find("second line"), std::string::npos);
}

TEST(TerminalSummary, ListsAtMostFiveInputErrorsAndCountsTheRest) {
  ReportModel m = sample_model();
  m.input_errors.clear();
  for (int i = 0; i < 8; ++i) {
    m.input_errors.push_back({1, "preds.jsonl:" + std::to_string(i), "not JSON"});
  }
  std::string text = render_terminal_summary(m, false);
  EXPECT_NE(text.find("Input errors (8):\n"), std::string::npos);
  EXPECT_NE(text.find("  preds.jsonl:4: not JSON\n"), std::string::npos);
  EXPECT_EQ(text.find("preds.jsonl:5"), std::string::npos);
  EXPECT_NE(text.find("  ... and 3 more (see summary.json)\n"), std::string::npos);
}

}  // namespace
}  // namespace kbx::report

namespace kbx::report {
namespace {

WorkloadRow workload(int index, std::vector<double> samples, bool brackets = false) {
  WorkloadRow w;
  w.index = index;
  w.candidate_ms = stats::summarize(samples);
  w.timed_by_bracket = brackets;
  return w;
}

TEST(TerminalSummary, SaysHowManyTimedWorkloadsMetTheSamplingTargetAndTheWidestThatDidNot) {
  ReportModel m = sample_model();
  SubmissionRow row;
  row.file = "Math/softmax.py";
  row.perf_ok = true;
  std::vector<double> steady(50, 1.0);
  std::vector<double> spread(20);
  for (std::size_t i = 0; i < spread.size(); ++i) {
    spread[i] = 1.0 + 0.01 * static_cast<double>(i);  // about +-4% around the median
  }
  row.workloads = {workload(0, steady), workload(1, spread), workload(2, {1, 2, 3}, true)};
  m.rows = {row};
  std::string out = render_terminal_summary(m, false);
  EXPECT_NE(out.find("Sampling: 1 of 3 workloads within 1% (median's 95% interval), 1 by "
                     "brackets, 1 at the budget\n  widest at the budget: Math/softmax.py "
                     "workload 1, +-"),
            std::string::npos)
      << out;
  EXPECT_EQ(sampling_outcome(row.workloads[0].candidate_ms, false), "ci");
  EXPECT_EQ(sampling_outcome(row.workloads[1].candidate_ms, false), "budget");
}

}  // namespace
}  // namespace kbx::report

namespace kbx::report {
namespace {

TEST(TerminalSummary, SaysWhenThePerfWorkloadsWereShrunk) {
  ReportModel m = sample_model();
  EXPECT_EQ(render_terminal_summary(m, false).find("--perf-scale"), std::string::npos);
  m.perf_scale = 0.25;
  EXPECT_NE(render_terminal_summary(m, false)
                .find("Perf workloads shrunk to 0.25 of their bytes (--perf-scale): speedups are "
                      "not comparable with full-size runs\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kbx::report
