// Tests of saving and reading evaluations, their samples, and the reference's timings.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <string>

#include "kbx/common/error.h"
#include "kbx/store/database.h"
#include "support/test_support.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

void raw_exec(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << sql;
}

std::int64_t raw_count(const fs::path& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::string sql = "SELECT count(*) FROM " + table;
  std::int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

// A store with one session and submissions "s1" and "s2" of Math/add.py.
struct Fixture {
  ScopedTempDir dir;
  fs::path path = dir.path() / "kbx.db";
  std::unique_ptr<Database> db = Database::open(path);
  std::int64_t session = db->begin_session({});

  Fixture() {
    db->upsert_submission({"s1", "Math/add.py", "preds.jsonl:1", 0, "code 1"});
    db->upsert_submission({"s2", "Math/add.py", "preds.jsonl:2", 1, "code 2"});
  }
};

EvaluationRecord make_evaluation(const std::string& id, std::int64_t session) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.device = "cuda:0 NVIDIA H200";
  e.outcome = "ok";
  e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
  e.triton_launches = 12;
  e.time_queue_ms = 1.25;
  e.time_load_ms = 200.5;
  e.time_cases_ms = 31;
  e.time_compare_ms = 0.75;
  e.time_perf_ms = 900;
  e.time_total_ms = 1133.5;
  e.log_tail = "compiled\nran\n";
  e.reference_session_id = session;
  e.cases = {{0, "rows_2x3", "ok", "", "", "", 0, 0, 0, -1, 0.5},
             {1, "big", "mismatch", "tolerance", "max abs err 0.1 at [3]", "out[0]", 0.1, 0.02, 7,
              3, 1.5}};
  e.timings = {{0, "ok", "", 10, {0.1, 0.2, 0.30000000000000004}, {}, false, {}, 0, {}, {}, {}},
               {1, "error", "CUDA out of memory", 0, {}, {}, false, {}, 0, {}, {}, {}}};
  return e;
}

void expect_same_timings(const std::vector<TimingRecord>& a, const std::vector<TimingRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].workload, b[i].workload);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].warmup_calls, b[i].warmup_calls);
    EXPECT_EQ(a[i].samples_ms, b[i].samples_ms);  // exact, bit for bit
  }
}

TEST(Evaluations, EveryFieldOfAnEvaluationRoundTrips) {
  Fixture f;
  EvaluationRecord in = make_evaluation("s1", f.session);
  in.reason = "r";
  in.detail = "d";
  in.perf_note = "n";
  in.exe_ok = false;
  f.db->save_evaluation(in);

  auto all = f.db->evaluations();
  ASSERT_EQ(all.size(), 1U);
  const EvaluationRecord& out = all[0];
  EXPECT_EQ(out.submission_id, "s1");
  EXPECT_EQ(out.session_id, f.session);
  EXPECT_EQ(out.device, in.device);
  EXPECT_EQ(out.outcome, "ok");
  EXPECT_EQ(out.reason, "r");
  EXPECT_EQ(out.detail, "d");
  EXPECT_EQ(out.perf_note, "n");
  EXPECT_TRUE(out.call_ok);
  EXPECT_FALSE(out.exe_ok);
  EXPECT_TRUE(out.triton_ok);
  EXPECT_TRUE(out.perf_ok);
  EXPECT_EQ(out.triton_launches, 12);
  EXPECT_EQ(out.time_queue_ms, 1.25);
  EXPECT_EQ(out.time_load_ms, 200.5);
  EXPECT_EQ(out.time_cases_ms, 31);
  EXPECT_EQ(out.time_compare_ms, 0.75);
  EXPECT_EQ(out.time_perf_ms, 900);
  EXPECT_EQ(out.time_total_ms, 1133.5);
  EXPECT_EQ(out.log_tail, in.log_tail);
  EXPECT_EQ(out.reference_session_id, f.session);
  ASSERT_EQ(out.cases.size(), 2U);
  const CaseRecord& c = out.cases[1];
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.name, "big");
  EXPECT_EQ(c.status, "mismatch");
  EXPECT_EQ(c.reason, "tolerance");
  EXPECT_EQ(c.detail, "max abs err 0.1 at [3]");
  EXPECT_EQ(c.path, "out[0]");
  EXPECT_EQ(c.err_abs_max, 0.1);
  EXPECT_EQ(c.err_rel_max, 0.02);
  EXPECT_EQ(c.mismatch_count, 7);
  EXPECT_EQ(c.first_mismatch_index, 3);
  EXPECT_EQ(c.time_ms, 1.5);
  EXPECT_EQ(out.cases[0].first_mismatch_index, -1);
  expect_same_timings(out.timings, in.timings);
}

TEST(Evaluations, SamplesRoundTripExactlyIncludingExtremeValuesAndOrder) {
  Fixture f;
  EvaluationRecord in = make_evaluation("s1", f.session);
  std::vector<double> samples = {0.1,
                                 1.0 / 3.0,
                                 std::numeric_limits<double>::denorm_min(),
                                 std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::infinity(),
                                 5.0,
                                 0.0,
                                 4.0};
  for (int i = 0; i < 1000; ++i) {
    samples.push_back(std::nextafter(1.0, 2.0) + i * 1e-9);
  }
  in.timings = {{3, "ok", "", 25, samples, {}, false, {}, 0, {}, {}, {}}, {0, "ok", "", 1, {2.5}, {}, false, {}, 0, {}, {}, {}}};
  f.db->save_evaluation(in);
  auto out = f.db->evaluations().at(0).timings;
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].workload, 0);  // read back ordered by workload
  EXPECT_EQ(out[0].samples_ms, std::vector<double>{2.5});
  EXPECT_EQ(out[1].workload, 3);
  EXPECT_EQ(out[1].samples_ms, samples);
  EXPECT_EQ(raw_count(f.path, "candidate_samples"), 1009);  // one row per sample
}

TEST(Evaluations, TimingMethodAndStreamCheckFiguresRoundTrip) {
  Fixture f;
  EvaluationRecord in = make_evaluation("s1", f.session);
  TimingRecord bracketed;
  bracketed.workload = 0;
  bracketed.status = "ok";
  bracketed.samples_ms = {0.3, 0.31};
  bracketed.timed_by_bracket = true;
  bracketed.method_note = "fastest bracket 0.3000 ms, events 0.0100 ms";
  bracketed.events_median_ms = 0.01;
  bracketed.brackets_min_ms = 0.3;
  bracketed.kernel_busy_ms = 0.25;
  bracketed.host_ms = 0.02;
  TimingRecord plain;
  plain.workload = 1;
  plain.status = "ok";
  plain.samples_ms = {1.0};
  in.timings = {bracketed, plain};
  f.db->save_evaluation(in);
  auto out = f.db->evaluations().at(0).timings;
  ASSERT_EQ(out.size(), 2U);
  EXPECT_TRUE(out[0].timed_by_bracket);
  EXPECT_EQ(out[0].method_note, bracketed.method_note);
  EXPECT_EQ(out[0].events_median_ms, 0.01);
  EXPECT_EQ(out[0].brackets_min_ms, 0.3);
  EXPECT_EQ(out[0].kernel_busy_ms, 0.25);
  EXPECT_EQ(out[0].host_ms, 0.02);
  EXPECT_FALSE(out[1].timed_by_bracket);
  EXPECT_EQ(out[1].method_note, "");
  EXPECT_FALSE(out[1].events_median_ms.has_value());
  EXPECT_FALSE(out[1].kernel_busy_ms.has_value());

  f.db->save_reference_timings(f.session, "Math/add.py", {bracketed}, "cuda:0");
  auto ref = f.db->reference_timings(f.session, "Math/add.py", "cuda:0");
  ASSERT_TRUE(ref.has_value());
  EXPECT_TRUE(ref->at(0).timed_by_bracket);
  EXPECT_EQ(ref->at(0).brackets_min_ms, 0.3);
}

TEST(Evaluations, NanInAMetricIsReadBackAsNan) {
  Fixture f;
  EvaluationRecord in = make_evaluation("s1", f.session);
  in.cases[1].err_abs_max = std::nan("");
  f.db->save_evaluation(in);
  EXPECT_TRUE(std::isnan(f.db->evaluations().at(0).cases.at(1).err_abs_max));
}

TEST(Evaluations, EvaluatedIdsListOnlySubmissionsWithAnEvaluation) {
  Fixture f;
  EXPECT_TRUE(f.db->evaluated_submission_ids().empty());
  f.db->save_evaluation(make_evaluation("s2", f.session));
  EXPECT_EQ(f.db->evaluated_submission_ids(), std::set<std::string>{"s2"});
  f.db->save_evaluation(make_evaluation("s1", f.session));
  EXPECT_EQ(f.db->evaluated_submission_ids(), (std::set<std::string>{"s1", "s2"}));
}

TEST(Evaluations, EvaluationsComeBackInSourceOrder) {
  Fixture f;
  f.db->save_evaluation(make_evaluation("s2", f.session));
  f.db->save_evaluation(make_evaluation("s1", f.session));
  auto all = f.db->evaluations();
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].submission_id, "s1");
  EXPECT_EQ(all[1].submission_id, "s2");
}

TEST(Evaluations, SavingAgainReplacesTheEarlierEvaluationWithItsCasesAndSamples) {
  Fixture f;
  f.db->save_evaluation(make_evaluation("s1", f.session));
  std::int64_t second_session = f.db->begin_session({});
  EvaluationRecord again = make_evaluation("s1", second_session);
  again.outcome = "incorrect";
  again.cases = {{0, "only", "mismatch", "shape", "", "", 0, 0, 0, -1, 0}};
  again.timings = {{0, "ok", "", 1, {9.0}, {}, false, {}, 0, {}, {}, {}}};
  f.db->save_evaluation(again);

  auto all = f.db->evaluations();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].outcome, "incorrect");
  EXPECT_EQ(all[0].session_id, second_session);
  ASSERT_EQ(all[0].cases.size(), 1U);
  EXPECT_EQ(all[0].cases[0].name, "only");
  expect_same_timings(all[0].timings, again.timings);
  EXPECT_EQ(raw_count(f.path, "cases"), 1);
  EXPECT_EQ(raw_count(f.path, "candidate_timings"), 1);
  EXPECT_EQ(raw_count(f.path, "candidate_samples"), 1);
}

TEST(Evaluations, AWriteThatFailsAtTheLastSampleLeavesTheEarlierEvaluationIntact) {
  Fixture f;
  f.db->save_evaluation(make_evaluation("s1", f.session));
  // Make the store reject the third sample of any later write, after the evaluation row, its
  // cases and two samples went in.
  raw_exec(f.path,
           "CREATE TRIGGER fail_third_sample BEFORE INSERT ON candidate_samples "
           "WHEN NEW.sample_index = 2 BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
  EvaluationRecord replacement = make_evaluation("s1", f.session);
  replacement.outcome = "incorrect";
  EXPECT_THROW(f.db->save_evaluation(replacement), Error);
  EvaluationRecord fresh = make_evaluation("s2", f.session);
  EXPECT_THROW(f.db->save_evaluation(fresh), Error);

  auto all = f.db->evaluations();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].submission_id, "s1");
  EXPECT_EQ(all[0].outcome, "ok");
  EXPECT_EQ(all[0].cases.size(), 2U);
  expect_same_timings(all[0].timings, make_evaluation("s1", f.session).timings);
  EXPECT_EQ(f.db->evaluated_submission_ids(), std::set<std::string>{"s1"});
  EXPECT_EQ(raw_count(f.path, "cases"), 2);
  EXPECT_EQ(raw_count(f.path, "candidate_samples"), 3);
}

TEST(Evaluations, ARepeatedCaseIndexFailsTheWholeWriteAndTheStoreStaysUsable) {
  Fixture f;
  EvaluationRecord bad = make_evaluation("s1", f.session);
  bad.cases[1].index = 0;
  try {
    f.db->save_evaluation(bad);
    ADD_FAILURE() << "expected a store error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::store);
    EXPECT_NE(std::string(e.what()).find(f.path.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(f.db->evaluations().empty());
  EXPECT_EQ(raw_count(f.path, "cases"), 0);
  f.db->save_evaluation(make_evaluation("s1", f.session));  // no transaction left open
  EXPECT_EQ(f.db->evaluations().size(), 1U);
}

TEST(Evaluations, AnEvaluationOfAnUnknownSubmissionOrSessionIsRefused) {
  Fixture f;
  EXPECT_THROW(f.db->save_evaluation(make_evaluation("nope", f.session)), Error);
  EXPECT_THROW(f.db->save_evaluation(make_evaluation("s1", f.session + 100)), Error);
  EXPECT_TRUE(f.db->evaluations().empty());
}

TEST(Evaluations, AnEvaluationWithoutReferenceSessionReadsBackAsZero) {
  Fixture f;
  EvaluationRecord in = make_evaluation("s1", f.session);
  in.reference_session_id = 0;
  in.timings.clear();
  in.cases.clear();
  f.db->save_evaluation(in);
  auto out = f.db->evaluations().at(0);
  EXPECT_EQ(out.reference_session_id, 0);
  EXPECT_TRUE(out.timings.empty());
  EXPECT_TRUE(out.cases.empty());
}

TEST(ReferenceTimings, RoundTripPerSessionAndTask) {
  Fixture f;
  std::int64_t other = f.db->begin_session({});
  std::vector<TimingRecord> add = {{0, "ok", "", 5, {1.5, 1.25, 1.75}, {}, false, {}, 0, {}, {}, {}},
                                   {1, "error", "timeout", 0, {}, {}, false, {}, 0, {}, {}, {}}};
  std::vector<TimingRecord> mul = {{0, "ok", "", 3, {9.0}, {}, false, {}, 0, {}, {}, {}}};
  f.db->save_reference_timings(f.session, "Math/add.py", add);
  f.db->save_reference_timings(f.session, "Math/mul.py", mul);

  auto got = f.db->reference_timings(f.session, "Math/add.py");
  ASSERT_TRUE(got.has_value());
  expect_same_timings(*got, add);
  expect_same_timings(f.db->reference_timings(f.session, "Math/mul.py").value(), mul);
  EXPECT_FALSE(f.db->reference_timings(other, "Math/add.py").has_value());
  EXPECT_FALSE(f.db->reference_timings(f.session, "Math/none.py").has_value());
}

TEST(ReferenceTimings, ASubmissionsOwnTimingsAreKeptApartFromTheSessions) {
  Fixture f;
  std::vector<TimingRecord> shared = {{0, "ok", "", 5, {1.0}, {}, false, {}, 0, {}, {}, {}}};
  std::vector<TimingRecord> own = {{0, "ok", "", 5, {2.0, 3.0}, {}, false, {}, 0, {}, {}, {}}};
  f.db->save_reference_timings(f.session, "Math/add.py", shared, "cuda:0");
  f.db->save_reference_timings(f.session, "Math/add.py", own, "cuda:0", "s1");
  expect_same_timings(f.db->reference_timings(f.session, "Math/add.py", "cuda:0").value(), shared);
  expect_same_timings(f.db->reference_timings(f.session, "Math/add.py", "cuda:0", "s1").value(),
                      own);
  EXPECT_FALSE(f.db->reference_timings(f.session, "Math/add.py", "cuda:0", "s2").has_value());
  f.db->save_reference_timings(f.session, "Math/add.py", shared, "cuda:0", "s1");  // replaces
  expect_same_timings(f.db->reference_timings(f.session, "Math/add.py", "cuda:0", "s1").value(),
                      shared);
  EXPECT_EQ(raw_count(f.path, "reference_samples"), 1);
  EXPECT_EQ(raw_count(f.path, "submission_reference_samples"), 1);
}

TEST(ReferenceTimings, SavingAgainReplacesTheTaskTimingsOfThatSession) {
  Fixture f;
  f.db->save_reference_timings(f.session, "Math/add.py",
                               {{0, "ok", "", 5, {1, 2}, {}, false, {}, 0, {}, {}, {}}, {1, "ok", "", 5, {3}, {}, false, {}, 0, {}, {}, {}}});
  std::vector<TimingRecord> again = {{0, "ok", "", 2, {4.0}, {}, false, {}, 0, {}, {}, {}}};
  f.db->save_reference_timings(f.session, "Math/add.py", again);
  expect_same_timings(f.db->reference_timings(f.session, "Math/add.py").value(), again);
  EXPECT_EQ(raw_count(f.path, "reference_samples"), 1);
}

TEST(ReferenceTimings, TimingsOfAnUnknownSessionAreRefused) {
  Fixture f;
  EXPECT_THROW(
      f.db->save_reference_timings(f.session + 7, "Math/add.py", {{0, "ok", "", 1, {1.0}, {}, false, {}, 0, {}, {}, {}}}), Error);
  EXPECT_EQ(raw_count(f.path, "reference_timings"), 0);
}

}  // namespace
}  // namespace kbx::store
