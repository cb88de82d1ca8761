// The speedup against torch.compile (`kbx eval --baseline eager,compile`): derived from the
// compile baseline's samples like the one against eager, counted in the totals, and shown in the
// exports and the terminal summary only where the run has the baseline.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kbx/report/exports.h"
#include "kbx/report/report_model.h"
#include "support/test_support.h"
#include "unit/report/rows.h"

namespace kbx::report {
namespace {

using kbx::testing::ScopedTempDir;
using store::EvaluationRecord;
using store::TimingRecord;

const std::string kGpu0 = "cuda:0 NVIDIA H200";

TimingRecord timing(int workload, std::vector<double> samples) {
  TimingRecord t;
  t.workload = workload;
  t.samples_ms = std::move(samples);
  return t;
}

EvaluationRecord timed(const std::string& id, std::int64_t session,
                       std::vector<std::vector<double>> samples) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.reference_session_id = session;
  e.device = kGpu0;
  e.outcome = "ok";
  e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
  for (std::size_t w = 0; w < samples.size(); ++w) {
    e.timings.push_back(timing(static_cast<int>(w), samples[w]));
  }
  return e;
}

// Three tasks timed against eager and torch.compile:
//   sA Math/add.py  two workloads: candidate 2 and 4, eager 6 and 8, compile 3 and 3
//                   -> vs compile 1
//   sB Math/mul.py  candidate 4, eager 8, compile 2 -> vs compile 0.5 (slower)
//   sC Math/sub.py  candidate 1, eager 3, compile failed on its workload -> none, with the reason
//   sD Math/neg.py  incorrect
struct CompileRun {
  ScopedTempDir dir;
  std::unique_ptr<store::Database> db = store::Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});

  explicit CompileRun(bool record_baselines = true) {
    if (record_baselines) {
      db->set_run_config({{"device", "cuda"}, {"baselines", {"eager", "compile"}}});
    }
    for (const char* key : {"Math/add.py", "Math/mul.py", "Math/sub.py", "Math/neg.py"}) {
      db->upsert_task({key, "Math", "f", "v1", 1, {{0, {}, 1e9, 0, Json::array(), "float32"},
                                                   {1, {}, 1e9, 0, Json::array(), "float32"}}});
    }
    db->save_reference_timings(session, "Math/add.py",
                               {timing(0, {6, 6, 6}), timing(1, {8, 8, 8})}, kGpu0);
    db->save_reference_timings(session, "Math/mul.py", {timing(0, {8, 8, 8})}, kGpu0);
    db->save_reference_timings(session, "Math/sub.py", {timing(0, {3, 3, 3})}, kGpu0);
    db->save_baseline_timings(session, "Math/add.py", "compile",
                              {timing(0, {3, 3, 3}), timing(1, {3, 3, 3})}, kGpu0);
    db->save_baseline_timings(session, "Math/mul.py", "compile", {timing(0, {2, 2, 2})}, kGpu0);
    TimingRecord failed;
    failed.status = "error";
    failed.error = "torch_compile_error: RuntimeError: lowering failed";
    db->save_baseline_timings(session, "Math/sub.py", "compile", {failed}, kGpu0);
    int ordinal = 0;
    for (const auto& [id, key] : std::vector<std::pair<std::string, std::string>>{
             {"sA", "Math/add.py"}, {"sB", "Math/mul.py"}, {"sC", "Math/sub.py"},
             {"sD", "Math/neg.py"}}) {
      db->upsert_submission({id, key, "preds.jsonl", ordinal++, "code"});
    }
    db->save_evaluation(timed("sA", session, {{2, 2, 2}, {4, 4, 4}}));
    db->save_evaluation(timed("sB", session, {{4, 4, 4}}));
    db->save_evaluation(timed("sC", session, {{1, 1, 1}}));
    EvaluationRecord wrong;
    wrong.submission_id = "sD";
    wrong.session_id = session;
    wrong.device = kGpu0;
    wrong.outcome = "incorrect";
    wrong.call_ok = true;
    db->save_evaluation(wrong);
  }
};

using rows::row_of;

TEST(CompileBaseline, ARowsSpeedupAgainstCompileIsARatioOfSumsWithAWidenedIntervalAndVerdict) {
  CompileRun run;
  auto m = build_report_model(*run.db);
  EXPECT_TRUE(m.has_compile_baseline());
  const SubmissionRow& a = row_of(m, "sA");
  EXPECT_DOUBLE_EQ(a.speedup, 14.0 / 6.0);  // against eager, as before
  ASSERT_TRUE(a.vs_compile);
  EXPECT_DOUBLE_EQ(a.vs_compile->ref_runtime_ms, 6.0);
  EXPECT_DOUBLE_EQ(a.vs_compile->speedup, 1.0);
  EXPECT_DOUBLE_EQ(a.vs_compile->avg_speedup, (1.5 + 0.75) / 2);
  EXPECT_DOUBLE_EQ(a.workloads[0].compile_ms.median, 3.0);
  EXPECT_DOUBLE_EQ(a.workloads[1].compile_speedup, 0.75);
  ASSERT_TRUE(a.vs_compile->speedup_ci);
  EXPECT_DOUBLE_EQ(a.vs_compile->speedup_ci->low, 1.0 / (1 + stats::slot_margin));
  EXPECT_EQ(a.vs_compile->speedup_verdict, stats::SpeedupVerdict::same);
  const SubmissionRow& b = row_of(m, "sB");
  ASSERT_TRUE(b.vs_compile);
  EXPECT_DOUBLE_EQ(b.vs_compile->speedup, 0.5);
  EXPECT_EQ(b.vs_compile->speedup_verdict, stats::SpeedupVerdict::slower);
  EXPECT_EQ(b.speedup_verdict, stats::SpeedupVerdict::faster);  // 2x over eager
}

TEST(CompileBaseline, AFailedCompileLeavesTheEagerSpeedupAndSaysWhy) {
  CompileRun run;
  auto m = build_report_model(*run.db);
  const SubmissionRow& c = row_of(m, "sC");
  EXPECT_TRUE(c.perf_ok);
  EXPECT_DOUBLE_EQ(c.speedup, 3.0);
  EXPECT_FALSE(c.vs_compile);
  EXPECT_EQ(c.compile_note,
            "torch.compile baseline: workload 0: torch_compile_error: RuntimeError: lowering "
            "failed");
  EXPECT_FALSE(row_of(m, "sD").vs_compile);
  EXPECT_TRUE(row_of(m, "sD").compile_note.empty());  // not timed at all
}

TEST(CompileBaseline, TotalsCountVerdictsOverEveryRowAndTheGeomeanOverRowsWithIt) {
  CompileRun run;
  auto m = build_report_model(*run.db);
  const Totals::Baseline& t = m.overall.vs_compile;
  EXPECT_EQ(t.timed, 2);
  EXPECT_DOUBLE_EQ(t.geomean_speedup, std::sqrt(1.0 * 0.5));
  EXPECT_EQ(t.verdicts.same, 1);
  EXPECT_EQ(t.verdicts.slower, 1);
  EXPECT_EQ(t.verdicts.none, 2);
  EXPECT_EQ(t.fast_1_pass, 0);
  EXPECT_EQ(m.overall.fast_1_pass, 3);  // against eager, every timed row clears 1
}

TEST(CompileBaseline, ExportsCarryTheNewFieldsBesideThePublicOnesWhereTheRunHasIt) {
  CompileRun run;
  auto m = build_report_model(*run.db);
  Json results = kbx_results_json(m);
  EXPECT_EQ(results["summary"]["baselines"], Json::array({"eager", "compile"}));
  EXPECT_EQ(results["summary"]["vs_compile"]["timed"], 2);
  EXPECT_EQ(results["summary"]["vs_compile"]["speedup_verdicts"]["slower"], 1);
  const Json& a = results["submissions"][0];
  EXPECT_DOUBLE_EQ(a["speedup"].get<double>(), 14.0 / 6.0);
  EXPECT_DOUBLE_EQ(a["speedup_vs_compile"].get<double>(), 1.0);
  EXPECT_EQ(a["speedup_vs_compile_verdict"], "same");
  EXPECT_DOUBLE_EQ(a["workloads"][1]["compile_runtime_ms"].get<double>(), 3.0);
  const Json& c = results["submissions"][2];
  EXPECT_TRUE(c["speedup_vs_compile"].is_null());
  EXPECT_EQ(c["speedup_vs_compile_verdict"], "none");
  EXPECT_NE(c["compile_note"].get<std::string>().find("lowering failed"), std::string::npos);
  // metrics.json keeps the public shape: no field of the compile baseline.
  Json metrics = metrics_json(m);
  EXPECT_FALSE(metrics["Math/add.py"].contains("speedup_vs_compile"));
  std::string csv = kbx_results_csv(m);
  EXPECT_NE(csv.find(",detail,compile_ref_runtime_ms,speedup_vs_compile,"), std::string::npos);
  std::string summary = render_terminal_summary(m, false);
  EXPECT_NE(summary.find("vs torch.compile (default mode; 95% interval): geomean 0.707x over 2 "
                         "timed, faster 0, same 1, slower 1, ambiguous 0"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("1 timed submission without a torch.compile baseline"),
            std::string::npos);
}

TEST(CompileBaseline, ARunWithoutItShowsNoneOfItsFields) {
  ScopedTempDir dir;
  auto db = store::Database::open(dir.path() / "kbx.db");
  auto session = db->begin_session({});
  db->upsert_task({"Math/add.py", "Math", "f", "v1", 1, {{0, {}, 1e9, 0, Json::array(), ""}}});
  db->save_reference_timings(session, "Math/add.py", {timing(0, {6, 6})}, kGpu0);
  db->upsert_submission({"s", "Math/add.py", "preds.jsonl", 0, "code"});
  db->save_evaluation(timed("s", session, {{2, 2}}));
  auto m = build_report_model(*db);
  EXPECT_FALSE(m.has_compile_baseline());
  Json results = kbx_results_json(m);
  EXPECT_EQ(results["summary"]["baselines"], Json::array({"eager"}));
  EXPECT_FALSE(results["summary"].contains("vs_compile"));
  EXPECT_FALSE(results["submissions"][0].contains("speedup_vs_compile"));
  EXPECT_FALSE(results["submissions"][0]["workloads"][0].contains("compile_runtime_ms"));
  EXPECT_EQ(kbx_results_csv(m).find("compile"), std::string::npos);
  EXPECT_EQ(render_terminal_summary(m, false).find("torch.compile"), std::string::npos);
}

TEST(CompileBaseline, ARunWhoseIdentityLacksItStillShowsStoredCompileTimings) {
  CompileRun run(/*record_baselines=*/false);  // a merged run, say, whose options differed
  auto m = build_report_model(*run.db);
  EXPECT_EQ(m.baselines, (std::vector<std::string>{"eager", "compile"}));
}

}  // namespace
}  // namespace kbx::report
