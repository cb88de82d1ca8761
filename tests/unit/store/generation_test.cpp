// The tables of `kbx generate` (schema 6): the migration from version 5, the answer cache, and
// the generation rows.
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

/// A store as kbx made it at schema version 5, holding one submission.
void make_version_5_store(const fs::path& path) {
  make_store_at(path, 5,
                "INSERT INTO submissions (submission_id, task_key, origin, ordinal, code) "
                "VALUES ('s1', 'Math/abs.py', 'a.py', 0, 'code');");
}

TEST(GenerationTables, AVersion5StoreMigratesToTheLatestAndKeepsItsData) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  make_version_5_store(path);
  auto db = Database::open(path);
  ASSERT_EQ(db->submissions().size(), 1U);
  EXPECT_EQ(db->submissions()[0].id, "s1");
  EXPECT_TRUE(db->generations().empty());
  EXPECT_FALSE(db->llm_response("k").has_value());
  EXPECT_EQ(latest_schema_version(), 11);  // 6 generation tables, 7 workload inputs, 8 serve,
                                           // 9 generation rows keyed by their run, 10 baselines,
                                           // 11 CUDA-graph samples
}

TEST(GenerationTables, CachedAnswersRoundTripAndTheFirstAnswerOfAKeyIsKept) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  LlmResponseRecord r;
  r.request_key = "abc";
  r.api = "openai";
  r.model = "m";
  r.request_json = R"({"model":"m"})";
  r.response_json = R"({"choices":[]})";
  r.text = "```python\nx = 1\n```";
  r.finish_reason = "stop";
  r.tokens_in = 120;
  r.tokens_out = 34;
  r.cost_usd = 0.5;
  r.attempts = 3;
  db->put_llm_response(r);
  auto second = r;
  second.text = "other";
  db->put_llm_response(second);
  auto got = db->llm_response("abc");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->text, r.text);
  EXPECT_EQ(got->tokens_in, 120);
  EXPECT_EQ(got->tokens_out, 34);
  EXPECT_EQ(got->attempts, 3);
  EXPECT_DOUBLE_EQ(got->cost_usd, 0.5);
  EXPECT_FALSE(got->created_at.empty());
  auto totals = db->llm_response_totals();
  EXPECT_EQ(totals.attempts, 1);  // one answer
  EXPECT_EQ(totals.tokens_in, 120);
}

TEST(GenerationTables, AGenerationRowIsReplacedForTheSameTaskRoundAndCandidate) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  db->upsert_submission({"s1", "Math/abs.py", "gen", 0, "code"});
  GenerationRecord g;
  g.task_key = "Math/abs.py";
  g.round = 1;
  g.candidate = 2;
  g.method = "refine";
  g.model = "m";
  g.status = "request_failed";
  g.detail = "HTTP 500";
  g.prompt_version = "v1";
  db->upsert_generation(g);
  g.status = "code";
  g.detail = "";
  g.submission_id = "s1";
  db->upsert_generation(g);
  auto rows = db->generations();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].status, "code");
  EXPECT_EQ(rows[0].submission_id, "s1");
  EXPECT_EQ(rows[0].round, 1);
  EXPECT_EQ(rows[0].candidate, 2);
  EXPECT_EQ(rows[0].method, "refine");
}

TEST(GenerationTables, RowsOfTwoRunsForTheSameTaskRoundAndCandidateAreBothKept) {
  ScopedTempDir dir;
  auto db = Database::open(dir.path() / "kbx.db");
  GenerationRecord g;
  g.task_key = "Math/abs.py";
  g.method = "refine";
  g.model = "a";
  g.status = "no_code";
  g.prompt_version = "v1";
  g.run_key = R"({"method":"refine","model":"a"})";
  db->upsert_generation(g);
  g.model = "b";
  g.run_key = R"({"method":"refine","model":"b"})";
  db->upsert_generation(g);
  g.run_key.clear();  // a writer without a run key: method and model make one
  g.model = "c";
  db->upsert_generation(g);
  auto rows = db->generations();
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].run_key, R"({"method":"refine","model":"a"})");
  EXPECT_EQ(rows[1].run_key, R"({"method":"refine","model":"b"})");
  EXPECT_EQ(rows[2].run_key, R"({"method":"refine","model":"c"})");
}

TEST(GenerationTables, AVersion8StoresRowsGetARunKeyFromTheirMethodAndModel) {
  ScopedTempDir dir;
  auto path = dir.path() / "kbx.db";
  make_store_at(path, 8,
                "INSERT INTO generations (task_key, round, candidate, method, model, status, "
                "detail, prompt_version, created_at) VALUES ('Math/abs.py', 0, 1, 'one-shot', "
                "'m', 'no_code', 'prose only', 'v1', '2026-12-01T00:00:00Z');");
  auto db = Database::open(path);
  auto rows = db->generations();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].run_key, R"({"method":"one-shot","model":"m"})");
  EXPECT_EQ(rows[0].detail, "prose only");
  EXPECT_EQ(rows[0].candidate, 1);
}

}  // namespace
}  // namespace kbx::store
