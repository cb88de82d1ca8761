// Tests of opening, migrating and the run-level tables of the store.
#include "kbx/store/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "kbx/common/error.h"
#include "kbx/store/migrations.h"
#include "support/test_support.h"
#include "unit/store/old_store.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

// Runs SQL on the file directly, behind the store's back.
using old_store::exec_sql;

// The first column of the first row as text ("" when there is no row).
std::string raw_query(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const auto* text = sqlite3_column_text(st, 0);
    out = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// The message of the kbx::Error(store) that `fn` throws; fails the test if it throws nothing.
template <typename Fn>
std::string store_error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::store);
    return e.what();
  }
  ADD_FAILURE() << "expected a kbx::Error";
  return {};
}

TEST(Database, CreatesTheSchemaAndRecordsItsVersionInMeta) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  Database::open(path);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(raw_query(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(latest_schema_version()));
  for (const char* table :
       {"sessions", "tasks", "workloads", "submissions", "input_errors", "evaluations", "cases",
        "candidate_timings", "candidate_samples", "reference_timings", "reference_samples"}) {
    EXPECT_EQ(
        raw_query(path, fmt::format("SELECT count(*) FROM sqlite_master WHERE name = '{}'", table)),
        "1")
        << table;
  }
}

TEST(Database, OpensInWalMode) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  Database::open(path);
  EXPECT_EQ(raw_query(path, "PRAGMA journal_mode"), "wal");
}

TEST(Database, ReopeningKeepsTheDataAndDoesNotMigrateAgain) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  Database::open(path)->upsert_submission({"s1", "Math/add.py", "preds.jsonl:1", 0, "code"});
  auto db = Database::open(path);
  ASSERT_EQ(db->submissions().size(), 1U);
  EXPECT_EQ(db->submissions()[0].id, "s1");
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM meta"), "1");
}

TEST(Database, MigratesAnEmptySqliteFileToTheLatestSchema) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  exec_sql(path, "PRAGMA user_version = 0");  // a valid, empty database: schema version 0
  auto db = Database::open(path);
  EXPECT_EQ(raw_query(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(latest_schema_version()));
  EXPECT_TRUE(db->sessions().empty());
}

TEST(Database, MigrationsAreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const Migration& m : migrations()) {
    EXPECT_EQ(m.version, expected++) << m.name;
  }
  EXPECT_EQ(latest_schema_version(), expected - 1);
}

TEST(Database, RefusesAStoreWithANewerSchemaAndSaysWhatToDo) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  Database::open(path);
  exec_sql(path, "UPDATE meta SET value = '999' WHERE key = 'schema_version'");
  std::string message = store_error_of([&] { Database::open(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("schema version 999"), std::string::npos) << message;
  EXPECT_NE(message.find("newer kbx"), std::string::npos) << message;
}

TEST(Database, RefusesAFileThatIsNotADatabase) {
  ScopedTempDir dir;
  auto path = dir.write("kbx.db", std::string(4096, 'x'));
  std::string message = store_error_of([&] { Database::open(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not a kbx store"), std::string::npos) << message;
}

TEST(Database, RefusesAPathInAMissingFolder) {
  ScopedTempDir dir;
  auto path = dir.path() / "missing" / "kbx.db";
  std::string message = store_error_of([&] { Database::open(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("folder exists"), std::string::npos) << message;
}

TEST(Database, RefusesADamagedSchemaVersion) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  Database::open(path);
  exec_sql(path, "UPDATE meta SET value = 'one' WHERE key = 'schema_version'");
  std::string message = store_error_of([&] { Database::open(path); });
  EXPECT_NE(message.find("'one'"), std::string::npos) << message;
}

TEST(Database, RunConfigIsAbsentUntilSetAndKeepsTheFirstValue) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  EXPECT_FALSE(db->run_config().has_value());
  Json first = {{"device", "cuda"}, {"seed", 7}};
  db->set_run_config(first);
  db->set_run_config({{"device", "cpu"}});
  ASSERT_TRUE(db->run_config().has_value());
  EXPECT_EQ(db->run_config()->dump(), first.dump());  // key order survives too
}

TEST(Database, SessionsStartRunningAndEndWithATimestamp) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  SessionRecord in;
  in.started_at = "2024-05-01T10:00:00Z";
  in.kbx_version = "0.1.0 (abc)";
  in.argv = {"kbx", "eval", "--out", "runs/x"};
  std::int64_t id = db->begin_session(in);
  std::int64_t second = db->begin_session({});
  EXPECT_GT(second, id);
  db->set_session_env(id, {{"gpu", "H200"}, {"torch", "2.4"}});
  db->end_session(id, "finished");

  auto sessions = db->sessions();
  ASSERT_EQ(sessions.size(), 2U);
  EXPECT_EQ(sessions[0].id, id);
  EXPECT_EQ(sessions[0].started_at, "2024-05-01T10:00:00Z");
  EXPECT_EQ(sessions[0].status, "finished");
  EXPECT_EQ(sessions[0].finished_at.size(), std::string("2024-05-01T10:00:00Z").size());
  EXPECT_EQ(sessions[0].argv, in.argv);
  EXPECT_EQ(sessions[0].env.dump(), R"({"gpu":"H200","torch":"2.4"})");
  EXPECT_EQ(sessions[1].status, "running");
  EXPECT_TRUE(sessions[1].finished_at.empty());
  EXPECT_FALSE(sessions[1].started_at.empty());   // filled with the current time
  EXPECT_FALSE(sessions[1].kbx_version.empty());  // filled with this binary's version
}

TEST(Database, SessionsLeftRunningByADeadProcessAreMarkedLostAndTheEndedOnesKept) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  std::int64_t killed = db->begin_session({});
  std::int64_t finished = db->begin_session({});
  db->end_session(finished, "finished");
  std::int64_t also_killed = db->begin_session({});
  EXPECT_EQ(db->close_lost_sessions(), 2);
  auto sessions = db->sessions();
  ASSERT_EQ(sessions.size(), 3U);
  EXPECT_EQ(sessions[0].id, killed);
  EXPECT_EQ(sessions[0].status, "lost");
  EXPECT_TRUE(sessions[0].finished_at.empty());  // when it ended is unknown
  EXPECT_EQ(sessions[1].status, "finished");
  EXPECT_EQ(sessions[2].id, also_killed);
  EXPECT_EQ(sessions[2].status, "lost");
  EXPECT_EQ(db->close_lost_sessions(), 0);
}

TEST(Database, ASessionCanEndAsFailed) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  std::int64_t id = db->begin_session({});
  db->end_session(id, "failed");
  EXPECT_EQ(db->sessions().at(0).status, "failed");
  EXPECT_FALSE(db->sessions().at(0).finished_at.empty());
}

TEST(Database, EndingOrDescribingAnUnknownSessionThrows) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  EXPECT_NE(store_error_of([&] { db->end_session(42, "interrupted"); }).find("no session 42"),
            std::string::npos);
  EXPECT_NE(store_error_of([&] { db->set_session_env(42, Json::object()); }).find("no session 42"),
            std::string::npos);
}

TEST(Database, UpsertTaskReplacesTheTaskAndAllItsWorkloads) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  TaskRecord task{"Math/softmax.py",
                  "Math",
                  "softmax",
                  "v1",
                  3,
                  {{0, {{"M", 1024}, {"N", 16}}, 131072, 49152, Json::array(), ""},
                   {1, {{"M", 8}}, 64, 24, Json::array(), ""}}};
  db->upsert_task(task);
  db->upsert_task({"Conv/conv2d.py", "Conv", "conv2d", "v1", 1, {}});
  task.version = "v2";
  task.workloads = {{0, {{"M", 2}}, 1.5, 0.25, Json::parse("[[2, 3], [3]]"), "float16"}};
  db->upsert_task(task);

  auto tasks = db->tasks();  // sorted by key
  ASSERT_EQ(tasks.size(), 2U);
  EXPECT_EQ(tasks[0].key, "Conv/conv2d.py");
  EXPECT_TRUE(tasks[0].workloads.empty());
  EXPECT_EQ(tasks[1].key, "Math/softmax.py");
  EXPECT_EQ(tasks[1].category, "Math");
  EXPECT_EQ(tasks[1].entry, "softmax");
  EXPECT_EQ(tasks[1].version, "v2");
  EXPECT_EQ(tasks[1].case_count, 3);
  ASSERT_EQ(tasks[1].workloads.size(), 1U);
  EXPECT_EQ(tasks[1].workloads[0].params, Json({{"M", 2}}));
  EXPECT_EQ(tasks[1].workloads[0].bytes, 1.5);
  EXPECT_EQ(tasks[1].workloads[0].flops, 0.25);
  EXPECT_EQ(tasks[1].workloads[0].input_size, Json::parse("[[2, 3], [3]]"));
  EXPECT_EQ(tasks[1].workloads[0].dtype, "float16");
}

TEST(Database, UpsertSubmissionIsIdempotentAndKeepsTheFirstOriginAndOrdinal) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  db->upsert_submission({"b", "Math/mul.py", "preds.jsonl:2", 1, "mul code"});
  db->upsert_submission({"a", "Math/add.py", "preds.jsonl:1", 0, "add code"});
  db->upsert_submission({"a", "Math/add.py", "other.jsonl:9", 9, "add code"});
  db->upsert_submission({"a", "Math/add.py", "other.jsonl:9", 9, "add code"});

  auto subs = db->submissions();  // in source order
  ASSERT_EQ(subs.size(), 2U);
  EXPECT_EQ(subs[0].id, "a");
  EXPECT_EQ(subs[0].task_key, "Math/add.py");
  EXPECT_EQ(subs[0].origin, "preds.jsonl:1");
  EXPECT_EQ(subs[0].ordinal, 0);
  EXPECT_EQ(subs[0].code, "add code");
  EXPECT_EQ(subs[1].id, "b");
}

TEST(Database, SubmissionCodeRoundTripsByteForByte) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  std::string code("import triton\n\0tail \xff\xfe \t\"quotes\" 'single'", 41);
  db->upsert_submission({"x", "Math/add.py", "dir/Math/add.py", 0, code});
  EXPECT_EQ(db->submissions().at(0).code, code);
}

TEST(Database, InputErrorsKeepTheirOrderAndSession) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});
  db->add_input_error({session, "preds.jsonl:7", "not JSON"});
  db->add_input_error({0, "preds.jsonl:9", "no 'code' field"});
  auto errors = db->input_errors();
  ASSERT_EQ(errors.size(), 2U);
  EXPECT_EQ(errors[0].session_id, session);
  EXPECT_EQ(errors[0].origin, "preds.jsonl:7");
  EXPECT_EQ(errors[0].message, "not JSON");
  EXPECT_EQ(errors[1].session_id, 0);
  EXPECT_EQ(errors[1].message, "no 'code' field");
}

}  // namespace
}  // namespace kbx::store
