// Tests of Database::import_rows (kbx merge's copy): every table is covered, ids are renumbered.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "kbx/common/error.h"
#include "kbx/store/database.h"
#include "support/test_support.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

std::vector<std::string> table_names(const fs::path& path) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::vector<std::string> out;
  sqlite3_prepare_v2(db,
                     "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
                     "('meta', 'sqlite_sequence') ORDER BY name",
                     -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::int64_t raw_count(const fs::path& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::int64_t n = -1;
  std::string sql = "SELECT count(*) FROM " + table;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

EvaluationRecord evaluation(const std::string& id, std::int64_t session) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.device = "cuda:0 NVIDIA H200";
  e.outcome = "ok";
  e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
  e.reference_session_id = session;
  e.cases = {{0, "c0", "ok", "", "", "", 0, 0, 0, -1, 0.5}};
  e.timings = {{0, "ok", "", 3, {0.1, 0.2}, {}, false, {}, 0, {}, {}, {}}};
  e.kernels = {{"cases", "add_kernel", "triton", 2, {}}};
  return e;
}

// A run with one session, task Math/add.py, and the given submissions evaluated.
void make_run(const fs::path& path, const std::vector<std::string>& ids, double reference_ms) {
  auto db = Database::open(path);
  auto session = db->begin_session({});
  db->upsert_task({"Math/add.py", "Math", "add", "v1", 1, {{0, Json::object(), 8, 2, Json::array(), ""}}});
  int ordinal = 0;
  for (const auto& id : ids) {
    db->upsert_submission({id, "Math/add.py", "preds.jsonl", ordinal++, "code " + id});
    db->save_evaluation(evaluation(id, session));
  }
  db->save_reference_timings(session, "Math/add.py",
                             {{0, "ok", "", 3, {reference_ms}, {}, false, {}, 0, {}, {}, {}}},
                             "cuda:0 NVIDIA H200");
  db->add_input_error({session, "preds.jsonl:9", "not JSON"});
  db->end_session(session, "finished");
}

TEST(ImportRows, CopiesEveryTableOfTheSchema) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  auto tables = table_names(dir.path() / "kbx.db");
  auto known = Database::imported_tables();
  std::sort(known.begin(), known.end());
  EXPECT_EQ(tables, known) << "a table was added to the schema: teach import_rows to copy it "
                              "(src/kbx/store/database_import.cpp)";
}

TEST(ImportRows, RenumbersSessionsAndTimingsSoEachEvaluationKeepsItsOwnReference) {
  ScopedTempDir dir;
  make_run(dir.path() / "a.db", {"s1", "s2"}, 1.0);
  make_run(dir.path() / "b.db", {"s3"}, 3.0);
  auto merged = Database::open(dir.path() / "merged.db");
  EXPECT_EQ(merged->import_rows(dir.path() / "a.db", Json{{"label", "a"}}), 2);
  EXPECT_EQ(merged->import_rows(dir.path() / "b.db", Json{{"label", "b"}}), 1);
  auto sessions = merged->sessions();
  ASSERT_EQ(sessions.size(), 2U);
  EXPECT_EQ(sessions[0].env["merge_source"]["label"], "a");
  EXPECT_EQ(sessions[1].env["merge_source"]["label"], "b");
  auto evaluations = merged->evaluations();
  ASSERT_EQ(evaluations.size(), 3U);
  for (const auto& e : evaluations) {
    std::int64_t want = e.submission_id == "s3" ? sessions[1].id : sessions[0].id;
    EXPECT_EQ(e.session_id, want) << e.submission_id;
    EXPECT_EQ(e.reference_session_id, want) << e.submission_id;
    ASSERT_EQ(e.timings.size(), 1U);
    EXPECT_EQ(e.timings[0].samples_ms, (std::vector<double>{0.1, 0.2}));
    EXPECT_EQ(e.cases.size(), 1U);
  }
  EXPECT_EQ(raw_count(dir.path() / "merged.db", "kernels"), 3);
  auto ref_b = merged->reference_timings(sessions[1].id, "Math/add.py", "cuda:0 NVIDIA H200");
  ASSERT_TRUE(ref_b.has_value());
  EXPECT_EQ((*ref_b)[0].samples_ms, std::vector<double>{3.0});
  EXPECT_EQ(merged->submissions().size(), 3U);
  EXPECT_EQ(merged->tasks().size(), 1U);
  EXPECT_EQ(merged->tasks()[0].workloads.size(), 1U);
  EXPECT_EQ(merged->input_errors().size(), 2U);  // the report shows distinct ones
}

TEST(ImportRows, RefusesAnEvaluationThatIsAlreadyThereAndCopiesNothingOfThatRun) {
  ScopedTempDir dir;
  make_run(dir.path() / "a.db", {"s1"}, 1.0);
  make_run(dir.path() / "b.db", {"s1", "s2"}, 2.0);
  auto merged = Database::open(dir.path() / "merged.db");
  merged->import_rows(dir.path() / "a.db", Json::object());
  EXPECT_THROW(merged->import_rows(dir.path() / "b.db", Json::object()), Error);
  EXPECT_EQ(merged->evaluations().size(), 1U);
  EXPECT_EQ(merged->sessions().size(), 1U);
  // The source is detached again: a further import works.
  make_run(dir.path() / "c.db", {"s4"}, 4.0);
  EXPECT_EQ(merged->import_rows(dir.path() / "c.db", Json::object()), 1);
}

}  // namespace
}  // namespace kbx::store
