// Tests of build_report_model against a store with hand-computed expected numbers.
#include "kbx/report/report_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kbx/report/exports.h"
#include "support/test_support.h"
#include "unit/report/rows.h"

namespace kbx::report {
namespace {

const std::string kGpu0 = "cuda:0 NVIDIA H200";

using kbx::testing::ScopedTempDir;
using store::Database;
using store::EvaluationRecord;
using store::TimingRecord;

EvaluationRecord passing(const std::string& id, std::int64_t session,
                         std::vector<std::vector<double>> samples_per_workload) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.reference_session_id = session;
  e.device = kGpu0;
  e.outcome = "ok";
  e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
  e.time_total_ms = 100;
  for (std::size_t w = 0; w < samples_per_workload.size(); ++w) {
    e.timings.push_back({static_cast<int>(w), "ok", "", 3, samples_per_workload[w], {}, false, {}, 0, {}, {}, {}});
  }
  return e;
}

EvaluationRecord failing(const std::string& id, std::int64_t session, const std::string& outcome,
                         bool call_ok) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.device = kGpu0;
  e.outcome = outcome;
  e.reason = outcome == "incorrect" ? "mismatch" : "syntax_error";
  e.detail = "details of " + id;
  e.call_ok = call_ok;
  e.perf_note = "perf skipped: " + outcome;
  return e;
}

// Two categories, six submissions in source order:
//   sA  Math/add.py     ok, workloads: cand medians 2 and 4, ref medians 6 and 8 -> speedup 14/6
//   sB  Math/mul.py     ok, cand median 4, ref median 2 -> speedup 0.5
//   sC  Conv/conv2d.py  incorrect (called, wrong output)
//   sD  Conv/pool.py    pending (no evaluation)
//   sC2 Conv/conv2d.py  ok, cand median 5, ref median 10 -> speedup 2
//   sA2 Math/add.py     compile_error
struct Scenario {
  ScopedTempDir dir;
  std::unique_ptr<Database> db = Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});

  Scenario() {
    db->set_session_env(session, {{"gpu", "NVIDIA H200"}, {"torch", "2.5.1"}});
    db->upsert_task({"Math/add.py",
                     "Math",
                     "add",
                     "v1",
                     2,
                     {{0, {{"N", 1}}, 4e9, 2e12, Json::parse("[[4, 8], [8]]"), "float16"},
                      {1, {{"N", 2}}, 8e9, 0, Json::parse("[[8, 8], [8]]"), "float16"}}});
    db->upsert_task(
        {"Math/mul.py", "Math", "mul", "v1", 1, {{0, {{"N", 1}}, 1e9, 1e12, Json::array(), ""}}});
    db->upsert_task({"Conv/conv2d.py",
                     "Conv",
                     "conv2d",
                     "v1",
                     1,
                     {{0, {{"C", 3}}, 2e9, 8e12, Json::array(), ""}}});
    db->upsert_task(
        {"Conv/pool.py", "Conv", "pool", "v1", 1, {{0, {{"C", 3}}, 1e9, 0, Json::array(), ""}}});
    db->save_reference_timings(session, "Math/add.py",
                               {{0, "ok", "", 3, {6, 6, 6}, {}, false, {}, 0, {}, {}, {}}, {1, "ok", "", 3, {8, 7, 9}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
    db->save_reference_timings(session, "Math/mul.py", {{0, "ok", "", 3, {2, 2, 2}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
    db->save_reference_timings(session, "Conv/conv2d.py", {{0, "ok", "", 3, {10, 10}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
    add_submission("sA", "Math/add.py", 0);
    add_submission("sB", "Math/mul.py", 1);
    add_submission("sC", "Conv/conv2d.py", 2);
    add_submission("sD", "Conv/pool.py", 3);
    add_submission("sC2", "Conv/conv2d.py", 4);
    add_submission("sA2", "Math/add.py", 5);
    db->save_evaluation(passing("sA", session, {{3, 1, 2}, {4}}));
    db->save_evaluation(passing("sB", session, {{4, 4, 4}}));
    db->save_evaluation(failing("sC", session, "incorrect", true));
    db->save_evaluation(passing("sC2", session, {{5, 5, 5}}));
    db->save_evaluation(failing("sA2", session, "compile_error", false));
  }

  void add_submission(const std::string& id, const std::string& key, int ordinal) {
    db->upsert_submission({id, key, "preds.jsonl:" + std::to_string(ordinal + 1), ordinal, "code"});
  }
};

using rows::row_of;

const Totals& category(const ReportModel& m, const std::string& name) {
  for (const auto& [n, t] : m.categories) {
    if (n == name) {
      return t;
    }
  }
  throw std::runtime_error("no category " + name);
}

TEST(ReportModel, RowsFollowSourceOrderAndUnevaluatedSubmissionsArePending) {
  Scenario s;
  auto m = build_report_model(*s.db);
  std::vector<std::string> ids;
  for (const auto& r : m.rows) {
    ids.push_back(r.submission_id);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"sA", "sB", "sC", "sD", "sC2", "sA2"}));
  const SubmissionRow& d = row_of(m, "sD");
  EXPECT_EQ(d.outcome, "pending");
  EXPECT_EQ(d.file, "Conv/pool.py");
  EXPECT_EQ(d.category, "Conv");
  EXPECT_EQ(d.origin, "preds.jsonl:4");
  EXPECT_FALSE(d.call_ok || d.exe_ok || d.perf_ok || d.triton_ok);
  EXPECT_TRUE(d.workloads.empty());
  EXPECT_EQ(d.speedup, 0);
}

TEST(ReportModel, WorkloadStatisticsComeFromTheRawSamples) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const SubmissionRow& a = row_of(m, "sA");
  ASSERT_EQ(a.workloads.size(), 2U);
  const WorkloadRow& w0 = a.workloads[0];
  EXPECT_EQ(w0.index, 0);
  EXPECT_EQ(w0.params, Json({{"N", 1}}));
  EXPECT_EQ(w0.bytes, 4e9);
  EXPECT_EQ(w0.flops, 2e12);
  EXPECT_EQ(w0.candidate_ms.n, 3U);
  EXPECT_DOUBLE_EQ(w0.candidate_ms.median, 2.0);
  EXPECT_DOUBLE_EQ(w0.candidate_ms.q1, 1.5);
  EXPECT_DOUBLE_EQ(w0.candidate_ms.q3, 2.5);
  EXPECT_DOUBLE_EQ(w0.reference_ms.median, 6.0);
  EXPECT_DOUBLE_EQ(w0.gbs, 2000.0);     // 4 GB in 2 ms
  EXPECT_DOUBLE_EQ(w0.tflops, 1000.0);  // 2 TFLOP in 2 ms
  EXPECT_DOUBLE_EQ(w0.speedup, 3.0);
  const WorkloadRow& w1 = a.workloads[1];
  EXPECT_DOUBLE_EQ(w1.reference_ms.median, 8.0);
  EXPECT_DOUBLE_EQ(w1.gbs, 2000.0);  // 8 GB in 4 ms
  EXPECT_DOUBLE_EQ(w1.tflops, 0.0);
  EXPECT_DOUBLE_EQ(w1.speedup, 2.0);
}

TEST(ReportModel, SubmissionAggregatesAreSumsAndRatiosOfSumsAndAvgSpeedupIsTheWorkloadMean) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const SubmissionRow& a = row_of(m, "sA");
  EXPECT_TRUE(a.perf_ok);
  EXPECT_DOUBLE_EQ(a.runtime_ms, 6.0);       // 2 + 4
  EXPECT_DOUBLE_EQ(a.ref_runtime_ms, 14.0);  // 6 + 8
  EXPECT_DOUBLE_EQ(a.gbs, 2000.0);           // (4 + 8) GB in 6 ms
  EXPECT_DOUBLE_EQ(a.tflops, 2.0 / 0.006);   // (2 + 0) TFLOP in 6 ms
  EXPECT_DOUBLE_EQ(a.speedup, 14.0 / 6.0);   // not the mean of 3 and 2 ...
  EXPECT_DOUBLE_EQ(a.avg_speedup, 2.5);      // ... which is avg_speedup
  EXPECT_DOUBLE_EQ(a.time_total_ms, 100.0);
  EXPECT_DOUBLE_EQ(row_of(m, "sB").speedup, 0.5);
  EXPECT_DOUBLE_EQ(row_of(m, "sC2").speedup, 2.0);
  EXPECT_DOUBLE_EQ(row_of(m, "sC2").tflops, 1600.0);  // 8 TFLOP in 5 ms
}

TEST(ReportModel, WorkloadsCarryTheirInputSizesAndDtypeAndRowsTheirCode) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const SubmissionRow& a = row_of(m, "sA");
  EXPECT_EQ(a.workloads[1].input_size, Json::parse("[[8, 8], [8]]"));
  EXPECT_EQ(a.workloads[1].dtype, "float16");
  EXPECT_EQ(a.code, "code");
  EXPECT_EQ(a.dtype, "float16");                 // the task's, timed or not
  EXPECT_EQ(row_of(m, "sA2").dtype, "float16");  // a compile error of the same task
  EXPECT_EQ(row_of(m, "sB").workloads[0].input_size, Json::array());  // none recorded
}

TEST(ReportModel, EachTaskKeepsItsBestSubmissionInOrderOfFirstAppearance) {
  Scenario s;
  auto m = build_report_model(*s.db);
  // add: sA (ok) over sA2 (compile_error); conv2d: sC2 (ok) over the earlier sC (incorrect).
  EXPECT_EQ(m.task_rows, (std::vector<std::size_t>{0, 1, 4, 3}));
  EXPECT_EQ(m.task_totals.total, 4);  // distinct tasks
  EXPECT_EQ(m.task_totals.call_pass, 3);
  EXPECT_EQ(m.task_totals.exe_pass, 3);
  EXPECT_EQ(m.task_totals.perf_pass, 3);
  EXPECT_EQ(m.overall.total, 6);  // every submission
}

TEST(KeepForTask, RanksCorrectThenRunningThenFailedThenPendingThenTimedThenFaster) {
  SubmissionRow pending;
  pending.outcome = "pending";
  SubmissionRow failed;
  failed.outcome = "compile_error";
  SubmissionRow ran = failed;
  ran.outcome = "incorrect";
  ran.call_ok = true;
  SubmissionRow correct = ran;
  correct.outcome = "ok";
  correct.exe_ok = true;
  SubmissionRow timed = correct;
  timed.perf_ok = true;
  timed.speedup = 1.5;
  SubmissionRow faster = timed;
  faster.speedup = 2.5;
  std::vector<const SubmissionRow*> ladder{&pending, &failed, &ran, &correct, &timed, &faster};
  for (std::size_t i = 0; i + 1 < ladder.size(); ++i) {
    EXPECT_TRUE(keep_for_task(*ladder[i + 1], *ladder[i])) << i;
    EXPECT_FALSE(keep_for_task(*ladder[i], *ladder[i + 1])) << i;
  }
  EXPECT_FALSE(keep_for_task(faster, faster));  // a tie keeps the earlier one
}

TEST(AttachCodeQuality, FillsRowsBySubmissionIdAndKeepsTheToolAndNote) {
  Scenario s;
  auto m = build_report_model(*s.db);
  attach_code_quality(m, Json::parse(R"({"radon": "6.0.1", "note": "", "results": {
      "sA": {"code_quality": 2.5, "maintainability": 71.25, "error": ""},
      "sB": {"code_quality": null, "maintainability": null, "error": "radon cannot parse"}}})"));
  EXPECT_EQ(m.code_quality_tool, "radon 6.0.1");
  EXPECT_EQ(m.code_quality_note, "");
  EXPECT_EQ(row_of(m, "sA").code_quality.complexity, 2.5);
  EXPECT_EQ(row_of(m, "sA").code_quality.maintainability, 71.25);
  EXPECT_FALSE(row_of(m, "sB").code_quality.complexity);
  EXPECT_EQ(row_of(m, "sB").code_quality.error, "radon cannot parse");
  EXPECT_FALSE(row_of(m, "sC").code_quality.maintainability);  // not in the reply
}

TEST(AttachCodeQuality, AReplyWithoutResultsLeavesNoFiguresAndANote) {
  Scenario s;
  auto m = build_report_model(*s.db);
  attach_code_quality(m, Json::parse(R"({"radon": null, "note": "radon is not installed",
                                         "results": {}})"));
  EXPECT_EQ(m.code_quality_tool, "");
  EXPECT_EQ(m.code_quality_note, "radon is not installed");
  EXPECT_FALSE(row_of(m, "sA").code_quality.complexity);
  attach_code_quality(m, Json::object());
  EXPECT_EQ(m.code_quality_note, "the code-quality step gave no results");
}

TEST(ReportModel, EachTimedRowGetsABootstrapIntervalAndAVerdict) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const SubmissionRow& a = row_of(m, "sA");  // workload 1 has one candidate sample
  EXPECT_FALSE(a.speedup_ci);
  EXPECT_EQ(a.speedup_verdict, stats::SpeedupVerdict::ambiguous);
  // Constant samples: a degenerate bootstrap interval at 0.5, widened by the slot margin.
  const SubmissionRow& b = row_of(m, "sB");
  ASSERT_TRUE(b.speedup_ci);
  EXPECT_DOUBLE_EQ(b.speedup_ci->low, 0.5 / (1 + stats::slot_margin));
  EXPECT_DOUBLE_EQ(b.speedup_ci->high, 0.5 * (1 + stats::slot_margin));
  EXPECT_EQ(b.speedup_verdict, stats::SpeedupVerdict::slower);
  const SubmissionRow& c2 = row_of(m, "sC2");
  ASSERT_TRUE(c2.speedup_ci);
  EXPECT_DOUBLE_EQ(c2.speedup_ci->low, 2.0 / (1 + stats::slot_margin));
  EXPECT_EQ(c2.speedup_verdict, stats::SpeedupVerdict::faster);
  EXPECT_FALSE(row_of(m, "sC").speedup_ci);
  EXPECT_EQ(row_of(m, "sC").speedup_verdict, stats::SpeedupVerdict::none);
  EXPECT_EQ(row_of(m, "sD").speedup_verdict, stats::SpeedupVerdict::none);
}

TEST(ReportModel, ANoisyRowsIntervalHoldsItsPointEstimateAndIsTheSameEveryTime) {
  Scenario s;
  std::vector<double> candidate, reference;
  for (int i = 0; i < 40; ++i) {
    candidate.push_back(4.0 + 0.05 * (i % 9));
    reference.push_back(10.0 + 0.4 * (i % 7));
  }
  s.db->save_reference_timings(s.session, "Conv/conv2d.py",
                               {{0, "ok", "", 3, reference, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
  s.db->save_evaluation(passing("sC2", s.session, {candidate}));
  auto first = build_report_model(*s.db);
  auto again = build_report_model(*s.db);
  const SubmissionRow& r = row_of(first, "sC2");
  ASSERT_TRUE(r.speedup_ci);
  EXPECT_LT(r.speedup_ci->low, r.speedup);
  EXPECT_GT(r.speedup_ci->high, r.speedup);
  EXPECT_GT(r.speedup_ci->low, 2.0);
  EXPECT_EQ(r.speedup_verdict, stats::SpeedupVerdict::faster);
  EXPECT_EQ(row_of(again, "sC2").speedup_ci->low, r.speedup_ci->low);
  EXPECT_EQ(row_of(again, "sC2").speedup_ci->high, r.speedup_ci->high);
  EXPECT_EQ(first.overall.fast_2_pass, 1);
}

TEST(ReportModel, AHostSynchronisingReferenceWidensTheIntervalAndCanTurnAWinAmbiguous) {
  Scenario s;
  // The reference's kernels keep the GPU busy 2 of its 10 ms: host work between them.
  TimingRecord reference{0, "ok", "", 3, {10, 10}, {}, false, {}, 0, {}, {}, {}};
  reference.kernel_busy_ms = 2.0;
  s.db->save_reference_timings(s.session, "Conv/conv2d.py", {reference}, kGpu0);
  s.db->save_evaluation(passing("sC2", s.session, {{8, 8, 8}}));  // 1.25x, a degenerate interval
  auto m = build_report_model(*s.db);
  const SubmissionRow& r = row_of(m, "sC2");
  EXPECT_TRUE(r.host_synchronising);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_TRUE(r.workloads[0].host_synchronising);
  EXPECT_DOUBLE_EQ(r.speedup, 1.25);
  ASSERT_TRUE(r.speedup_ci);
  EXPECT_DOUBLE_EQ(r.speedup_ci->low, 1.25 / (1 + stats::host_synchronising_margin));
  EXPECT_DOUBLE_EQ(r.speedup_ci->high, 1.25 * (1 + stats::host_synchronising_margin));
  EXPECT_EQ(r.speedup_verdict, stats::SpeedupVerdict::ambiguous);
  EXPECT_EQ(m.overall.fast_1_pass, 0);
  EXPECT_FALSE(row_of(m, "sB").host_synchronising);  // no inventory: never flagged
}

TEST(ReportModel, HostSynchronisingNeedsMostOfTheSpanIdleAndMoreThan50Microseconds) {
  TimingRecord t{0, "ok", "", 3, {1.0, 1.0, 1.0}, {}, false, {}, 0, {}, {}, {}};
  EXPECT_FALSE(is_host_synchronising(t));  // no inventory
  t.kernel_busy_ms = 0.6;
  EXPECT_FALSE(is_host_synchronising(t));  // busy over half the span
  t.kernel_busy_ms = 0.4;
  EXPECT_TRUE(is_host_synchronising(t));
  t.samples_ms = {0.04, 0.04, 0.04};  // a short call whose launches leave gaps: 40 us idle at most
  t.kernel_busy_ms = 0.01;
  EXPECT_FALSE(is_host_synchronising(t));
  t.samples_ms = {};
  EXPECT_FALSE(is_host_synchronising(t));
}

TEST(ReportModel, ASelfCheckWithinTheSlotMarginIsTheSameSpeedNotAWin) {
  Scenario s;
  // 10.1 against 10 ms with a tight spread: 1.01x, a "win" of one slot over another.
  s.db->save_reference_timings(s.session, "Conv/conv2d.py",
                               {{0, "ok", "", 3, {10.1, 10.1, 10.11, 10.09}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
  s.db->save_evaluation(passing("sC2", s.session, {{10, 10, 10.01, 9.99}}));
  auto m = build_report_model(*s.db);
  const SubmissionRow& r = row_of(m, "sC2");
  ASSERT_TRUE(r.speedup_ci);
  EXPECT_LT(r.speedup_ci->low, 1.0);
  EXPECT_EQ(r.speedup_verdict, stats::SpeedupVerdict::same);
  EXPECT_EQ(m.overall.fast_1_pass, 0);
}

TEST(ReportModel, FailedSubmissionsKeepTheirVerdictAndHaveNoPerfNumbers) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const SubmissionRow& c = row_of(m, "sC");
  EXPECT_EQ(c.outcome, "incorrect");
  EXPECT_EQ(c.reason, "mismatch");
  EXPECT_EQ(c.detail, "details of sC");
  EXPECT_EQ(c.perf_note, "perf skipped: incorrect");
  EXPECT_TRUE(c.call_ok);
  EXPECT_FALSE(c.exe_ok);
  EXPECT_FALSE(c.perf_ok);
  EXPECT_EQ(c.runtime_ms, 0);
  EXPECT_EQ(c.ref_runtime_ms, 0);
  EXPECT_EQ(c.speedup, 0);
  EXPECT_FALSE(row_of(m, "sA2").call_ok);
}

TEST(ReportModel, CategoryTotalsAreSortedByNameAndHandComputed) {
  Scenario s;
  auto m = build_report_model(*s.db);
  ASSERT_EQ(m.categories.size(), 2U);
  EXPECT_EQ(m.categories[0].first, "Conv");
  EXPECT_EQ(m.categories[1].first, "Math");

  const Totals& conv = category(m, "Conv");  // sC incorrect, sD pending, sC2 speedup 2
  EXPECT_EQ(conv.total, 3);
  EXPECT_EQ(conv.call_pass, 2);
  EXPECT_EQ(conv.exe_pass, 1);
  EXPECT_EQ(conv.perf_pass, 1);
  EXPECT_DOUBLE_EQ(conv.avg_speedup_global, 2.0);
  EXPECT_DOUBLE_EQ(conv.avg_speedup_per_task, 2.0);
  EXPECT_DOUBLE_EQ(conv.geomean_speedup, 2.0);
  EXPECT_EQ(conv.faster_than_reference, 1);

  const Totals& math = category(m, "Math");  // sA 14/6, sB 0.5, sA2 compile error
  EXPECT_EQ(math.total, 3);
  EXPECT_EQ(math.call_pass, 2);
  EXPECT_EQ(math.exe_pass, 2);
  EXPECT_EQ(math.perf_pass, 2);
  EXPECT_DOUBLE_EQ(math.avg_speedup_global, 16.0 / 10.0);  // (6 + 8 + 2) / (2 + 4 + 4)
  EXPECT_DOUBLE_EQ(math.avg_speedup_per_task, (14.0 / 6.0 + 0.5) / 2);
  EXPECT_NEAR(math.geomean_speedup, std::sqrt(14.0 / 6.0 * 0.5), 1e-12);
  EXPECT_EQ(math.faster_than_reference, 1);
}

TEST(ReportModel, OverallTotalsSumWorkloadMediansAcrossAllPerfRows) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const Totals& t = m.overall;
  EXPECT_EQ(t.total, 6);
  EXPECT_EQ(t.call_pass, 4);
  EXPECT_EQ(t.exe_pass, 3);
  EXPECT_EQ(t.perf_pass, 3);
  // Sums of workload medians: (6 + 8 + 2 + 10) / (2 + 4 + 4 + 5). A ratio of the per-row means
  // would give (7 + 2 + 10) / (3 + 4 + 5) instead.
  EXPECT_DOUBLE_EQ(t.avg_speedup_global, 26.0 / 15.0);
  EXPECT_DOUBLE_EQ(t.avg_speedup_per_task, (14.0 / 6.0 + 0.5 + 2.0) / 3);
  EXPECT_NEAR(t.geomean_speedup, std::cbrt(14.0 / 6.0 * 0.5 * 2.0), 1e-12);
  EXPECT_EQ(t.faster_than_reference, 2);  // point estimates above 1: sA and sC2
}

TEST(ReportModel, VerdictsAreCountedForEveryRowAndFastPCountsOnlyIntervalWins) {
  Scenario s;
  auto m = build_report_model(*s.db);
  const Totals& t = m.overall;  // sA ambiguous, sB slower, sC2 faster at exactly 2, three none
  EXPECT_EQ(t.verdicts.faster, 1);
  EXPECT_EQ(t.verdicts.same, 0);
  EXPECT_EQ(t.verdicts.slower, 1);
  EXPECT_EQ(t.verdicts.ambiguous, 1);
  EXPECT_EQ(t.verdicts.none, 3);
  EXPECT_EQ(t.fast_1_pass, 1);  // sA's point estimate 2.33 is not a win without an interval
  EXPECT_EQ(t.fast_1_5_pass, 1);
  EXPECT_EQ(t.fast_2_pass, 0);  // the low end must be above 2, not equal to it
  const Totals& math = category(m, "Math");
  EXPECT_EQ(math.verdicts.faster, 0);
  EXPECT_EQ(math.verdicts.ambiguous, 1);
  EXPECT_EQ(math.verdicts.slower, 1);
  EXPECT_EQ(math.verdicts.none, 1);
  EXPECT_EQ(math.fast_1_pass, 0);
  EXPECT_EQ(category(m, "Conv").fast_1_pass, 1);
}

TEST(ReportModel, OutcomesAreCountedInAFixedOrder) {
  Scenario s;
  auto m = build_report_model(*s.db);
  std::vector<std::pair<std::string, int>> expected = {
      {"ok", 3}, {"incorrect", 1}, {"compile_error", 1}, {"pending", 1}};
  EXPECT_EQ(m.outcomes, expected);
}

TEST(ReportModel, UnknownOutcomesFollowTheKnownOnesByName) {
  Scenario s;
  s.db->save_evaluation(failing("sD", s.session, "zeta_state", false));
  s.db->save_evaluation(failing("sA2", s.session, "alpha_state", false));
  auto m = build_report_model(*s.db);
  std::vector<std::pair<std::string, int>> expected = {
      {"ok", 3}, {"incorrect", 1}, {"alpha_state", 1}, {"zeta_state", 1}};
  EXPECT_EQ(m.outcomes, expected);
}

TEST(ReportModel, ALaterEvaluationOfASubmissionReplacesTheEarlierOne) {
  Scenario s;
  s.db->save_evaluation(passing("sC", s.session, {{20}}));  // now ok, speedup 10 / 20
  auto m = build_report_model(*s.db);
  EXPECT_EQ(row_of(m, "sC").outcome, "ok");
  EXPECT_DOUBLE_EQ(row_of(m, "sC").speedup, 0.5);
  EXPECT_EQ(m.overall.perf_pass, 4);
  EXPECT_EQ(category(m, "Conv").exe_pass, 2);
}

TEST(ReportModel, SpeedupsUseTheReferenceTimingsOfTheEvaluationsReferenceSession) {
  Scenario s;
  std::int64_t later = s.db->begin_session({});
  s.db->save_reference_timings(later, "Conv/conv2d.py", {{0, "ok", "", 3, {15}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
  EvaluationRecord e = passing("sC2", s.session, {{5, 5, 5}});
  e.reference_session_id = later;  // timed in one session, its reference in another
  s.db->save_evaluation(e);
  auto m = build_report_model(*s.db);
  EXPECT_DOUBLE_EQ(row_of(m, "sC2").speedup, 3.0);
  EXPECT_DOUBLE_EQ(row_of(m, "sC2").ref_runtime_ms, 15.0);
}

TEST(ReportModel, ASubmissionsOwnReferenceTimingsComeBeforeTheSessions) {
  Scenario s;
  // sC2's reference timed in its own slot (--reference-timing adjacent) at 20 ms; the session's
  // (10 ms) still serves every other submission of the task.
  s.db->save_reference_timings(s.session, "Conv/conv2d.py",
                               {{0, "ok", "", 3, {20}, {}, false, {}, 0, {}, {}, {}}}, kGpu0, "sC2");
  auto m = build_report_model(*s.db);
  EXPECT_DOUBLE_EQ(row_of(m, "sC2").speedup, 4.0);
  s.db->save_reference_timings(s.session, "Conv/conv2d.py",
                               {{0, "ok", "", 3, {30}, {}, false, {}, 0, {}, {}, {}}}, kGpu0, "sC");
  EXPECT_DOUBLE_EQ(row_of(build_report_model(*s.db), "sC2").speedup, 4.0);
}

TEST(ReportModel, APerfOkEvaluationWithoutReferenceSamplesIsNotCountedAsPerf) {
  Scenario s;
  std::int64_t empty_session = s.db->begin_session({});
  EvaluationRecord e = passing("sC2", s.session, {{5, 5, 5}});
  e.reference_session_id = empty_session;  // no reference timings saved there
  s.db->save_evaluation(e);
  auto m = build_report_model(*s.db);
  const SubmissionRow& r = row_of(m, "sC2");
  EXPECT_FALSE(r.perf_ok);
  EXPECT_TRUE(r.exe_ok);
  EXPECT_EQ(r.speedup, 0);
  EXPECT_EQ(r.perf_note, fmt::format("perf data incomplete in the store: no usable reference "
                                     "samples for workload 0 in session {}",
                                     empty_session));
  ASSERT_EQ(r.workloads.size(), 1U);
  EXPECT_DOUBLE_EQ(r.workloads[0].candidate_ms.median, 5.0);  // still shown
  EXPECT_EQ(category(m, "Conv").perf_pass, 0);
  EXPECT_EQ(category(m, "Conv").geomean_speedup, 0);
  EXPECT_EQ(m.overall.perf_pass, 2);
}

TEST(ReportModel, NonFiniteCandidateTimesAreNotCountedAsPerfInsteadOfBreakingTheMeans) {
  Scenario s;
  double inf = std::numeric_limits<double>::infinity();
  s.db->save_evaluation(passing("sC2", s.session, {{inf, inf, inf}}));
  auto m = build_report_model(*s.db);
  EXPECT_FALSE(row_of(m, "sC2").perf_ok);
  EXPECT_EQ(row_of(m, "sC2").perf_note,
            "perf data incomplete in the store: no usable candidate samples for workload 0");
  EXPECT_EQ(m.overall.perf_pass, 2);
  EXPECT_NEAR(m.overall.geomean_speedup, std::sqrt(14.0 / 6.0 * 0.5), 1e-12);
}

TEST(ReportModel, ASubmissionForATaskTheStoreDoesNotKnowTakesItsCategoryFromTheKey) {
  Scenario s;
  s.db->upsert_submission({"sX", "Fusion/unknown.py", "preds.jsonl:9", 9, "code"});
  s.db->save_evaluation(passing("sX", s.session, {{1.0}}));
  auto m = build_report_model(*s.db);
  const SubmissionRow& x = row_of(m, "sX");
  EXPECT_EQ(x.category, "Fusion");
  EXPECT_FALSE(x.perf_ok);  // no reference timings for it
  EXPECT_EQ(x.workloads.at(0).bytes, 0);
  EXPECT_EQ(m.categories.size(), 3U);
}

TEST(ReportModel, EnvironmentDeviceAndDistinctInputErrorsComeFromTheStore) {
  Scenario s;
  std::int64_t later = s.db->begin_session({});  // interrupted before it recorded an env
  s.db->add_input_error({s.session, "preds.jsonl:7", "not JSON"});
  s.db->add_input_error({later, "preds.jsonl:7", "not JSON"});  // the resumed run saw it again
  s.db->add_input_error({later, "preds.jsonl:8", "no 'code' field"});
  auto m = build_report_model(*s.db);
  EXPECT_EQ(m.environment, Json({{"gpu", "NVIDIA H200"}, {"torch", "2.5.1"}}));
  EXPECT_EQ(m.device, "cuda:0 NVIDIA H200");
  ASSERT_EQ(m.input_errors.size(), 2U);
  EXPECT_EQ(m.input_errors[0].origin, "preds.jsonl:7");
  EXPECT_EQ(m.input_errors[1].message, "no 'code' field");
}

TEST(ReportModel, AnEmptyStoreGivesZeroTotalsAndNoCategories) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto m = build_report_model(*db);
  EXPECT_TRUE(m.rows.empty());
  EXPECT_TRUE(m.categories.empty());
  EXPECT_TRUE(m.outcomes.empty());
  EXPECT_EQ(m.overall.total, 0);
  EXPECT_EQ(m.overall.geomean_speedup, 0);
  EXPECT_EQ(m.device, "");
  EXPECT_EQ(m.environment, Json::object());
}

}  // namespace
}  // namespace kbx::report

namespace kbx::report {
namespace {

TEST(ReportModel, EachCandidateIsDividedByTheReferenceTimedOnItsOwnGpu) {
  ScopedTempDir dir;
  auto db = store::Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});
  db->upsert_task(
      {"Math/add.py", "Math", "add", "v1", 1, {{0, {{"N", 1}}, 1e9, 1e9, Json::array(), ""}}});
  db->save_reference_timings(session, "Math/add.py", {{0, "ok", "", 1, {6}, {}, false, {}, 0, {}, {}, {}}}, "cuda:0 NVIDIA H200");
  db->save_reference_timings(session, "Math/add.py", {{0, "ok", "", 1, {9}, {}, false, {}, 0, {}, {}, {}}}, "cuda:1 NVIDIA H200");
  for (int gpu : {0, 1}) {
    std::string id = "s" + std::to_string(gpu);
    db->upsert_submission({id, "Math/add.py", "preds.jsonl", gpu, "code"});
    store::EvaluationRecord e;
    e.submission_id = id;
    e.session_id = session;
    e.reference_session_id = session;
    e.device = "cuda:" + std::to_string(gpu) + " NVIDIA H200";
    e.outcome = "ok";
    e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
    e.timings = {{0, "ok", "", 1, {3}, {}, false, {}, 0, {}, {}, {}}};
    db->save_evaluation(e);
  }
  auto m = build_report_model(*db);
  ASSERT_EQ(m.rows.size(), 2U);
  EXPECT_DOUBLE_EQ(m.rows[0].speedup, 2.0);
  EXPECT_DOUBLE_EQ(m.rows[1].speedup, 3.0);
}

TEST(BuildSubmissionRow, OneRowReadAloneEqualsItsRowInTheWholeModel) {
  // kbx serve answers from build_submission_row; its verdicts must be kbx eval's (interval,
  // verdict, perf figures, pending) record for record.
  Scenario s;
  auto m = build_report_model(*s.db);
  for (const char* id : {"sA", "sB", "sC", "sD", "sC2", "sA2"}) {
    auto row = build_submission_row(*s.db, id);
    ASSERT_TRUE(row.has_value()) << id;
    EXPECT_EQ(submission_record_json(*row, false).dump(),
              submission_record_json(row_of(m, id), false).dump())
        << id;
  }
  EXPECT_FALSE(build_submission_row(*s.db, "nope").has_value());
}

}  // namespace
}  // namespace kbx::report

namespace kbx::report {
namespace {

Json device_with_ceilings(const std::string& name, double copy_gbs) {
  return {{"name", name},
          {"ceilings",
           {{"name", name}, {"copy_gbs", copy_gbs}, {"matmul_tflops", {{"float16", 1000.0}}}}}};
}

TEST(ReportModel, UtilisationIsAgainstTheMeasuredCeilingsOfTheWorkloadsDtype) {
  Scenario s;
  s.db->set_session_env(s.session, {{"devices", Json::array({device_with_ceilings("H200", 4000)})}});
  auto m = build_report_model(*s.db);
  ASSERT_FALSE(m.ceilings.is_null());
  const SubmissionRow& a = row_of(m, "sA");  // float16; 2000 GB/s, 2 TFLOP in 6 ms
  ASSERT_TRUE(a.bandwidth_utilisation && a.compute_utilisation);
  EXPECT_DOUBLE_EQ(*a.bandwidth_utilisation, 0.5);
  EXPECT_DOUBLE_EQ(*a.compute_utilisation, (2.0 / 0.006) / 1000.0);
  EXPECT_DOUBLE_EQ(*a.workloads[0].compute_utilisation, 1.0);  // 2 TFLOP in 2 ms: at the peak
  EXPECT_FALSE(a.workloads[1].compute_utilisation);            // no FLOPs
  EXPECT_FALSE(a.utilisation_suspect);                         // 100% is not over
  const SubmissionRow& c2 = row_of(m, "sC2");  // no dtype: bandwidth only
  EXPECT_DOUBLE_EQ(*c2.bandwidth_utilisation, 0.1);
  EXPECT_FALSE(c2.compute_utilisation);
  EXPECT_FALSE(row_of(m, "sC").bandwidth_utilisation);  // not timed
}

TEST(ReportModel, AFigureOverAMeasuredCeilingIsSuspect) {
  Scenario s;
  s.db->set_session_env(s.session, {{"devices", Json::array({device_with_ceilings("H200", 1500)})}});
  auto m = build_report_model(*s.db);
  EXPECT_TRUE(row_of(m, "sA").utilisation_suspect);  // 2000 GB/s against a 1500 GB/s copy
  EXPECT_FALSE(row_of(m, "sB").utilisation_suspect);
  EXPECT_EQ(kbx_results_json(m)["summary"]["utilisation_suspect"], 1);
}

TEST(ReportModel, AFloat32WorkloadsRoofIsTheTf32MatmulWhenThatIsHigher) {
  Scenario s;
  s.db->upsert_task({"Math/mm32.py", "Math", "mm32", "v1", 1,
                     {{0, {{"N", 1}}, 1e9, 4e12, Json::array(), "float32"}}});
  s.db->save_reference_timings(s.session, "Math/mm32.py",
                               {{0, "ok", "", 3, {4, 4, 4}, {}, false, {}, 0, {}, {}, {}}}, kGpu0);
  s.add_submission("sM", "Math/mm32.py", 6);
  s.db->save_evaluation(passing("sM", s.session, {{2, 2, 2}}));  // 4 TFLOP in 2 ms: 2000 TFLOP/s
  Json device = device_with_ceilings("H200", 4000);
  device["ceilings"]["matmul_tflops"] = {{"float32", 1000.0}, {"tfloat32", 4000.0}};
  s.db->set_session_env(s.session, {{"devices", Json::array({device})}});
  auto m = build_report_model(*s.db);
  const SubmissionRow& r = row_of(m, "sM");
  ASSERT_TRUE(r.compute_utilisation);
  EXPECT_DOUBLE_EQ(*r.compute_utilisation, 0.5);  // against 4000, not 1000
  EXPECT_FALSE(r.utilisation_suspect);
}

TEST(ReportModel, NoCeilingsOrDifferentDevicesGiveNoUtilisation) {
  Scenario s;
  auto m = build_report_model(*s.db);
  EXPECT_TRUE(m.ceilings.is_null());
  EXPECT_FALSE(row_of(m, "sA").bandwidth_utilisation);
  s.db->set_session_env(s.session, {{"devices", Json::array({device_with_ceilings("H200", 4000),
                                                             device_with_ceilings("H100", 3000)})}});
  m = build_report_model(*s.db);
  EXPECT_TRUE(m.ceilings.is_null());
  EXPECT_FALSE(row_of(m, "sA").bandwidth_utilisation);
}

}  // namespace
}  // namespace kbx::report
