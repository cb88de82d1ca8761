// The compile baseline's samples (schema 10, table baseline_timings): the round trip beside
// eager's reference timings, the migration from version 9, and kbx merge's copy.
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

TimingRecord ok_timing(int workload, std::vector<double> samples) {
  TimingRecord t;
  t.workload = workload;
  t.warmup_calls = 2;
  t.samples_ms = std::move(samples);
  return t;
}

TimingRecord failed_timing(int workload, const std::string& why) {
  TimingRecord t;
  t.workload = workload;
  t.status = "error";
  t.error = why;
  return t;
}

TEST(BaselineTimings, RoundTripBesideEagerAndKeepTheirErrors) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto session = db->begin_session({});
  db->save_reference_timings(session, "Math/add.py", {ok_timing(0, {2, 3})}, kGpu0);
  db->save_baseline_timings(
      session, "Math/add.py", "compile",
      {ok_timing(0, {1.0, 1.5, 1.25}), failed_timing(1, "torch.compile: boom")}, kGpu0);
  auto compiled = db->baseline_timings(session, "Math/add.py", "compile", kGpu0);
  ASSERT_TRUE(compiled.has_value());
  ASSERT_EQ(compiled->size(), 2U);
  EXPECT_EQ((*compiled)[0].samples_ms, (std::vector<double>{1.0, 1.5, 1.25}));
  EXPECT_EQ((*compiled)[0].warmup_calls, 2);
  EXPECT_EQ((*compiled)[1].status, "error");
  EXPECT_EQ((*compiled)[1].error, "torch.compile: boom");
  EXPECT_TRUE((*compiled)[1].samples_ms.empty());
  // Eager's timings are untouched, and other baselines, devices and sessions have none.
  EXPECT_EQ(db->reference_timings(session, "Math/add.py", kGpu0)->at(0).samples_ms,
            (std::vector<double>{2, 3}));
  EXPECT_FALSE(db->baseline_timings(session, "Math/add.py", "other", kGpu0));
  EXPECT_FALSE(db->baseline_timings(session, "Math/add.py", "compile", "cuda:1 NVIDIA H200"));
  EXPECT_FALSE(db->baseline_timings(session + 1, "Math/add.py", "compile", kGpu0));
}

TEST(BaselineTimings, SavingAgainReplacesThatSessionTaskDeviceAndBaseline) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto session = db->begin_session({});
  db->save_baseline_timings(session, "Math/add.py", "compile", {failed_timing(0, "timed out")},
                            kGpu0);
  db->save_baseline_timings(session, "Math/add.py", "compile", {ok_timing(0, {4})}, kGpu0);
  auto compiled = db->baseline_timings(session, "Math/add.py", "compile", kGpu0);
  ASSERT_EQ(compiled->size(), 1U);
  EXPECT_EQ((*compiled)[0].status, "ok");
  EXPECT_EQ((*compiled)[0].samples_ms, std::vector<double>{4});
}

TEST(BaselineTimings, AVersion9StoreMigratesKeepsItsReferenceTimingsAndTakesBaselines) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  make_store_at(path, 9,
                "INSERT INTO sessions (started_at, status, kbx_version) "
                "VALUES ('2026-01-01T00:00:00Z', 'finished', 'old');"
                "INSERT INTO reference_timings (session_id, task_key, device, workload_index, "
                "status, error, warmup_calls) VALUES (1, 'Math/add.py', 'cpu', 0, 'ok', '', 2);"
                "INSERT INTO reference_samples VALUES (1, 0, 0.5);");
  auto db = Database::open(path);
  EXPECT_GE(latest_schema_version(), 10);
  auto eager = db->reference_timings(1, "Math/add.py", "cpu");
  ASSERT_TRUE(eager.has_value());
  EXPECT_EQ((*eager)[0].samples_ms, std::vector<double>{0.5});
  EXPECT_FALSE(db->baseline_timings(1, "Math/add.py", "compile", "cpu"));  // eager alone before
  db->save_baseline_timings(1, "Math/add.py", "compile", {ok_timing(0, {0.25})}, "cpu");
  EXPECT_EQ(db->baseline_timings(1, "Math/add.py", "compile", "cpu")->at(0).samples_ms,
            std::vector<double>{0.25});
}

TEST(BaselineTimings, KbxMergeCopiesThemWithTheirSessionsRenumbered) {
  ScopedTempDir dir;
  for (const char* name : {"a.db", "b.db"}) {
    auto db = Database::open(dir.path() / name);
    auto session = db->begin_session({});
    double ms = std::string(name) == "a.db" ? 1.0 : 2.0;
    db->save_baseline_timings(session, "Math/add.py", "compile", {ok_timing(0, {ms, ms})}, kGpu0);
    db->end_session(session, "finished");
  }
  auto merged = Database::open(dir.path() / "merged.db");
  merged->import_rows(dir.path() / "a.db", Json::object());
  merged->import_rows(dir.path() / "b.db", Json::object());
  auto sessions = merged->sessions();
  ASSERT_EQ(sessions.size(), 2U);
  EXPECT_EQ(merged->baseline_timings(sessions[0].id, "Math/add.py", "compile", kGpu0)
                ->at(0)
                .samples_ms,
            (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(merged->baseline_timings(sessions[1].id, "Math/add.py", "compile", kGpu0)
                ->at(0)
                .samples_ms,
            (std::vector<double>{2.0, 2.0}));
}

}  // namespace
}  // namespace kbx::store
