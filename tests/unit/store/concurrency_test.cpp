// Tests of the store under concurrent writers and a writer killed with SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "kbx/store/database.h"
#include "support/test_support.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

constexpr int workloads_per_evaluation = 4;
constexpr int cases_per_evaluation = 3;

std::string submission_id(int i) { return "sub-" + std::to_string(i); }

// An evaluation whose samples encode their owner, so a mix-up between writers shows.
EvaluationRecord make_evaluation(int i, std::int64_t session, int samples_per_workload) {
  EvaluationRecord e;
  e.submission_id = submission_id(i);
  e.session_id = session;
  e.outcome = "ok";
  for (int c = 0; c < cases_per_evaluation; ++c) {
    e.cases.push_back({c, "case" + std::to_string(c), "ok", "", "", "", 0, 0, 0, -1, 1.0});
  }
  for (int w = 0; w < workloads_per_evaluation; ++w) {
    TimingRecord t{w, "ok", "", 3, {}, {}, false, {}, 0, {}, {}, {}};
    for (int s = 0; s < samples_per_workload; ++s) {
      t.samples_ms.push_back(i + w * 1e-3 + s * 1e-7);
    }
    e.timings.push_back(t);
  }
  return e;
}

// A store with a session and `count` submissions; returns the session id.
std::int64_t prepare_store(const fs::path& path, int count) {
  auto db = Database::open(path);
  std::int64_t session = db->begin_session({});
  for (int i = 0; i < count; ++i) {
    db->upsert_submission({submission_id(i), "Math/add.py", "preds.jsonl", i, "code"});
  }
  return session;
}

// Every evaluation has all its cases, workloads and samples, each with its owner's values.
void expect_complete(Database& db, int samples_per_workload) {
  for (const EvaluationRecord& e : db.evaluations()) {
    int owner = std::stoi(e.submission_id.substr(4));
    ASSERT_EQ(e.cases.size(), static_cast<std::size_t>(cases_per_evaluation)) << e.submission_id;
    ASSERT_EQ(e.timings.size(), static_cast<std::size_t>(workloads_per_evaluation))
        << e.submission_id;
    for (const TimingRecord& t : e.timings) {
      ASSERT_EQ(t.samples_ms.size(), static_cast<std::size_t>(samples_per_workload))
          << e.submission_id;
      EXPECT_EQ(t.samples_ms.back(), owner + t.workload * 1e-3 + (samples_per_workload - 1) * 1e-7);
    }
  }
}

std::string integrity_check(const fs::path& path) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::string out = "no result";
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

TEST(DatabaseConcurrency, ThreadsSharingOneDatabaseCanAllWriteAndRead) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  constexpr int threads = 8;
  constexpr int per_thread = 20;
  std::int64_t session = prepare_store(path, threads * per_thread);
  auto db = Database::open(path);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int k = 0; k < per_thread; ++k) {
        int i = t * per_thread + k;
        db->save_evaluation(make_evaluation(i, session, 16));
        db->save_reference_timings(session, "task" + std::to_string(i), {{0, "ok", "", 1, {1.0}, {}, false, {}, 0, {}, {}, {}}});
        EXPECT_TRUE(db->evaluated_submission_ids().count(submission_id(i)) == 1);
      }
    });
  }
  for (auto& th : pool) {
    th.join();
  }
  EXPECT_EQ(db->evaluated_submission_ids().size(), static_cast<std::size_t>(threads * per_thread));
  expect_complete(*db, 16);
  EXPECT_TRUE(db->reference_timings(session, "task0").has_value());
}

TEST(DatabaseConcurrency, SeveralConnectionsToOneFileWaitForEachOtherInsteadOfFailing) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  constexpr int writers = 4;
  constexpr int per_writer = 15;
  std::int64_t session = prepare_store(path, writers * per_writer);
  std::vector<std::thread> pool;
  pool.reserve(writers);
  for (int w = 0; w < writers; ++w) {
    pool.emplace_back([&, w] {
      auto db = Database::open(path);  // its own connection, as a second process would have
      for (int k = 0; k < per_writer; ++k) {
        db->save_evaluation(make_evaluation(w * per_writer + k, session, 64));
        db->evaluations();
      }
    });
  }
  for (auto& th : pool) {
    th.join();
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->evaluated_submission_ids().size(), static_cast<std::size_t>(writers * per_writer));
  expect_complete(*db, 64);
}

TEST(DatabaseCrash, AWriterKilledMidRunLeavesOnlyCompleteEvaluations) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  constexpr int count = 1000;
  constexpr int samples = 2000;  // large writes, so the kill likely lands inside one
  std::int64_t session = prepare_store(path, count);

  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    try {
      auto db = Database::open(path);
      for (int i = 0; i < count; ++i) {
        db->save_evaluation(make_evaluation(i, session, samples));
      }
    } catch (...) {
      _exit(2);
    }
    _exit(0);
  }
  {
    auto reader = Database::open(path);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (reader->evaluated_submission_ids().size() < 5 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer finished before the kill; make it slower";

  EXPECT_EQ(integrity_check(path), "ok");
  auto db = Database::open(path);
  auto ids = db->evaluated_submission_ids();
  EXPECT_GE(ids.size(), 5U);
  EXPECT_LT(ids.size(), static_cast<std::size_t>(count));
  expect_complete(*db, samples);
  // Resume: the next writer skips what is done and finishes the rest.
  for (int i = 0; i < count; ++i) {
    if (ids.count(submission_id(i)) == 0) {
      db->save_evaluation(make_evaluation(i, session, 1));
    }
  }
  EXPECT_EQ(db->evaluated_submission_ids().size(), static_cast<std::size_t>(count));
}

}  // namespace
}  // namespace kbx::store
