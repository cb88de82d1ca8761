// Tests of what kbx serve reads and writes: one submission's evaluation, and the request log.
#include <gtest/gtest.h>

#include "kbx/store/database.h"
#include "support/test_support.h"

namespace kbx::store {
namespace {

using kbx::testing::ScopedTempDir;

struct ServeFixture {
  ScopedTempDir dir;
  std::unique_ptr<Database> db = Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});

  ServeFixture() {
    db->upsert_submission({"s1", "Math/add.py", "kbx serve", 0, "code 1"});
    db->upsert_submission({"s2", "Math/add.py", "kbx serve", 0, "code 2"});
  }
};

EvaluationRecord evaluation_of(const std::string& id, std::int64_t session, int cases) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.device = "cpu";
  e.outcome = "incorrect";
  e.reason = "mismatch";
  for (int i = 0; i < cases; ++i) {
    CaseRecord c;
    c.index = i;
    c.name = "case " + std::to_string(i);
    c.status = "ok";
    e.cases.push_back(c);
  }
  TimingRecord t;
  t.samples_ms = {1.0, 2.0};
  e.timings.push_back(t);
  return e;
}

TEST(ServeStore, ReadsOneSubmissionsEvaluationWithItsOwnCasesAndSamplesOnly) {
  ServeFixture f;
  f.db->save_evaluation(evaluation_of("s1", f.session, 2));
  f.db->save_evaluation(evaluation_of("s2", f.session, 3));
  auto e = f.db->evaluation("s2");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->submission_id, "s2");
  EXPECT_EQ(e->reason, "mismatch");
  EXPECT_EQ(e->cases.size(), 3U);
  ASSERT_EQ(e->timings.size(), 1U);
  EXPECT_EQ(e->timings[0].samples_ms, (std::vector<double>{1.0, 2.0}));
  EXPECT_FALSE(f.db->evaluation("s3").has_value());
}

TEST(ServeStore, ReadsOneSubmission) {
  ServeFixture f;
  auto s = f.db->submission("s2");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->code, "code 2");
  EXPECT_FALSE(f.db->submission("nope").has_value());
}

TEST(ServeStore, KeepsEveryRequestInArrivalOrder) {
  ServeFixture f;
  ServeRequestRecord r;
  r.session_id = f.session;
  r.received_at = "2026-01-01T00:00:00.000Z";
  r.remote_addr = "127.0.0.1";
  r.method = "POST";
  r.path = "/v1/evaluate";
  r.status = 200;
  r.task_key = "Math/add.py";
  r.submission_id = "s1";
  r.served_from = "evaluated";
  r.outcome = "ok";
  r.label = "step 1";
  r.metadata = Json{{"run", 3}};
  r.perf = true;
  r.time_total_ms = 12.5;
  f.db->add_serve_request(r);
  ServeRequestRecord refused;
  refused.session_id = f.session;
  refused.method = "POST";
  refused.path = "/v1/evaluate";
  refused.status = 400;
  refused.error = "missing field 'code'";
  f.db->add_serve_request(refused);  // no submission: stored as NULL, not a dangling id
  auto all = f.db->serve_requests();
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].submission_id, "s1");
  EXPECT_EQ(all[0].metadata["run"], 3);
  EXPECT_TRUE(all[0].perf);
  EXPECT_DOUBLE_EQ(all[0].time_total_ms, 12.5);
  EXPECT_EQ(all[1].status, 400);
  EXPECT_EQ(all[1].submission_id, "");
  EXPECT_EQ(all[1].error, "missing field 'code'");
}

}  // namespace
}  // namespace kbx::store
