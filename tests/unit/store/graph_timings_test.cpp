// CUDA-graph samples and errors (schema 11): the round trip through every timings table, the
// migration from version 10, and kbx merge's copy.
#include <gtest/gtest.h>

#include <string>

#include "kbx/store/database.h"
#include "kbx/store/migrations.h"
#include "support/test_support.h"
#include "unit/store/old_store.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;
using old_store::make_store_at;
namespace fs = std::filesystem;

const std::string kGpu0 = "cuda:0 NVIDIA H200";
const std::string kTask = "Math/add.py";

TimingRecord graph_timing(int workload, std::vector<double> eager, std::vector<double> graph,
                          std::string graph_error = "") {
  TimingRecord t;
  t.workload = workload;
  t.warmup_calls = 2;
  t.samples_ms = std::move(eager);
  t.graph_samples_ms = std::move(graph);
  t.graph_error = std::move(graph_error);
  return t;
}

std::vector<TimingRecord> two_workloads() {
  return {graph_timing(0, {0.010, 0.011}, {0.004, 0.0041, 0.0039}),
          graph_timing(1, {0.012}, {}, "RuntimeError: operation not permitted when stream is "
                                       "capturing")};
}

void expect_graph_figures(const std::vector<TimingRecord>& got) {
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0].samples_ms, (std::vector<double>{0.010, 0.011}));
  EXPECT_EQ(got[0].graph_samples_ms, (std::vector<double>{0.004, 0.0041, 0.0039}));
  EXPECT_TRUE(got[0].graph_error.empty());
  EXPECT_EQ(got[1].samples_ms, (std::vector<double>{0.012}));
  EXPECT_TRUE(got[1].graph_samples_ms.empty());
  EXPECT_EQ(got[1].graph_error, "RuntimeError: operation not permitted when stream is capturing");
}

void save_candidate(Database& db, std::int64_t session, const std::string& id) {
  db.upsert_submission({id, kTask, "a.py", 0, "code"});
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.device = kGpu0;
  e.outcome = "ok";
  e.perf_ok = true;
  e.timings = two_workloads();
  db.save_evaluation(e);
}

TEST(GraphTimings, RoundTripThroughEveryTimingsTableBitForBit) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto session = db->begin_session({});
  save_candidate(*db, session, "s1");
  db->save_reference_timings(session, kTask, two_workloads(), kGpu0);
  db->save_reference_timings(session, kTask, two_workloads(), kGpu0, "s1");
  db->save_baseline_timings(session, kTask, "compile", two_workloads(), kGpu0);
  expect_graph_figures(db->evaluations().at(0).timings);
  expect_graph_figures(db->evaluation("s1")->timings);
  expect_graph_figures(*db->reference_timings(session, kTask, kGpu0));
  expect_graph_figures(*db->reference_timings(session, kTask, kGpu0, "s1"));
  expect_graph_figures(*db->baseline_timings(session, kTask, "compile", kGpu0));
}

TEST(GraphTimings, RowsWithoutGraphFiguresReadBackEmpty) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto session = db->begin_session({});
  db->save_reference_timings(session, kTask, {graph_timing(0, {1.0}, {})}, kGpu0);
  auto got = db->reference_timings(session, kTask, kGpu0);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->at(0).graph_samples_ms.empty());
  EXPECT_TRUE(got->at(0).graph_error.empty());
}

TEST(GraphTimings, AVersion10StoreMigratesAndItsTimingsHaveNoGraphFigures) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  make_store_at(path, 10,
                "INSERT INTO sessions (started_at, status, kbx_version) "
                "VALUES ('2026-01-01T00:00:00Z', 'finished', 'old');"
                "INSERT INTO reference_timings (session_id, task_key, device, workload_index, "
                "status, error, warmup_calls) VALUES (1, 'Math/add.py', 'cpu', 0, 'ok', '', 2);"
                "INSERT INTO reference_samples VALUES (1, 0, 0.5);"
                "INSERT INTO baseline_timings (session_id, task_key, device, baseline, "
                "workload_index, status, error, warmup_calls) "
                "VALUES (1, 'Math/add.py', 'cpu', 'compile', 0, 'ok', '', 2);"
                "INSERT INTO baseline_samples VALUES (1, 0, 0.25);");
  auto db = Database::open(path);
  EXPECT_EQ(latest_schema_version(), 11);
  auto eager = db->reference_timings(1, kTask, "cpu");
  ASSERT_TRUE(eager.has_value());
  EXPECT_EQ(eager->at(0).samples_ms, std::vector<double>{0.5});
  EXPECT_TRUE(eager->at(0).graph_samples_ms.empty());
  EXPECT_TRUE(eager->at(0).graph_error.empty());
  EXPECT_TRUE(db->baseline_timings(1, kTask, "compile", "cpu")->at(0).graph_samples_ms.empty());
  // The migrated store takes graph figures like a new one.
  save_candidate(*db, 1, "s1");
  expect_graph_figures(db->evaluation("s1")->timings);
}

TEST(GraphTimings, KbxMergeCarriesThem) {
  ScopedTempDir dir;
  for (const char* name : {"a.db", "b.db"}) {
    auto db = Database::open(dir.path() / name);
    auto session = db->begin_session({});
    save_candidate(*db, session, std::string("s-") + name);
    db->save_reference_timings(session, kTask, two_workloads(), kGpu0);
    db->save_reference_timings(session, kTask, two_workloads(), kGpu0, std::string("s-") + name);
    db->save_baseline_timings(session, kTask, "compile", two_workloads(), kGpu0);
    db->end_session(session, "finished");
  }
  auto merged = Database::open(dir.path() / "merged.db");
  merged->import_rows(dir.path() / "a.db", Json::object());
  merged->import_rows(dir.path() / "b.db", Json::object());
  auto sessions = merged->sessions();
  ASSERT_EQ(sessions.size(), 2U);
  auto evaluations = merged->evaluations();
  ASSERT_EQ(evaluations.size(), 2U);
  for (const auto& e : evaluations) {
    expect_graph_figures(e.timings);
  }
  for (const auto& s : sessions) {
    expect_graph_figures(*merged->reference_timings(s.id, kTask, kGpu0));
    expect_graph_figures(*merged->baseline_timings(s.id, kTask, "compile", kGpu0));
  }
  expect_graph_figures(*merged->reference_timings(sessions[1].id, kTask, kGpu0, "s-b.db"));
}

}  // namespace
}  // namespace kbx::store
