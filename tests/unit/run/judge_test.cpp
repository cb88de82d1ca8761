// The judge distrusts the worker: evaluate_candidate() driven through an in-memory fake channel
// that sends honest and hostile replies, and the pure reply rules of judge.h. No Python runs.
#include "kbx/run/judge.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "kbx/run/evaluate.h"
#include "kbx/suite/suite.h"
#include "support/test_support.h"
#include "unit/suite/suite_fixture.h"

namespace kbx::run {
namespace {

using sandbox::Frame;
using sandbox::ReadFailure;
using sandbox::Reply;

constexpr int task_cases = 3;
constexpr int case_count = task_cases + 1;  // resolve_cases adds the recheck
const std::vector<float> expected_values{1, -2, 3.5F, 0.25F, 8, -1};

/// A worker that answers from a script, one reply per request, and remembers what it was asked.
class FakeChannel final : public CandidateChannel {
 public:
  std::deque<Reply> script;
  std::vector<Json> requests;
  bool killed = false;
  std::optional<sandbox::ExitStatus> status;
  std::chrono::milliseconds delay{0};  ///< how long each reply takes

  void say(Frame frame) { script.push_back(Reply{std::move(frame), ReadFailure::timeout, ""}); }
  void fail(ReadFailure failure, std::string error = "") {
    script.push_back(Reply{std::nullopt, failure, std::move(error)});
  }

  Reply request(const Frame& frame, sandbox::Clock::time_point /*deadline*/) override {
    requests.push_back(frame.header);
    if (delay.count() > 0) {
      std::this_thread::sleep_for(delay);
    }
    if (script.empty()) {
      return Reply{std::nullopt, ReadFailure::closed, ""};
    }
    Reply r = std::move(script.front());
    script.pop_front();
    return r;
  }
  void kill() override { killed = true; }
  std::optional<sandbox::ExitStatus> exit_status(std::chrono::milliseconds /*wait*/) override {
    return status;
  }
  std::string log_tail(std::size_t /*max_bytes*/) override { return "candidate log"; }
};

/// A channel the evaluation owns (and destroys) that answers through a FakeChannel the test
/// keeps, so the test can read what it was asked afterwards.
class ForwardingChannel final : public CandidateChannel {
 public:
  explicit ForwardingChannel(FakeChannel& to) : to_(to) {}
  Reply request(const Frame& frame, sandbox::Clock::time_point deadline) override {
    return to_.request(frame, deadline);
  }
  void kill() override { to_.kill(); }
  std::optional<sandbox::ExitStatus> exit_status(std::chrono::milliseconds wait) override {
    return to_.exit_status(wait);
  }
  std::string log_tail(std::size_t max_bytes) override { return to_.log_tail(max_bytes); }

 private:
  FakeChannel& to_;
};

/// Reference outputs for the three cases: the same 2x3 float32 tensor each time.
class FakeReferences final : public ReferenceSide {
 public:
  std::vector<store::TimingRecord> reference_timings;

  Result<std::shared_ptr<const CaseOutputs>> case_outputs(const suite::Task& /*task*/) override {
    auto out = std::make_shared<CaseOutputs>();
    for (int i = 0; i < case_count; ++i) {
      ReferenceCase rc;
      rc.outputs.push_back(tensor_leaf(expected_values));
      out->push_back(rc);
    }
    return std::shared_ptr<const CaseOutputs>(out);
  }
  Result<std::vector<CaseResult>> canonicalize(
      const suite::Task& /*task*/, const std::vector<suite::ResolvedCall>& /*calls*/,
      const std::vector<const std::vector<OutputLeaf>*>& /*outputs*/) override {
    return Error(ErrorKind::internal, "no canonical forms in these tests");
  }
  Result<std::vector<store::TimingRecord>> timings(const suite::Task& /*task*/,
                                                   bool& fresh) override {
    fresh = timings_fresh;
    return reference_timings;
  }
  Result<std::vector<store::TimingRecord>> timings_now(const suite::Task& /*task*/,
                                                       const std::vector<int>& only) override {
    timed_now += 1;
    timed_now_only = only;
    candidate_killed_first = channel != nullptr && channel->killed;
    if (!timings_now_error.empty()) {
      return Error(ErrorKind::worker, "{}", timings_now_error);
    }
    std::vector<store::TimingRecord> out;
    for (const auto& t : reference_timings) {
      if (only.empty() || std::find(only.begin(), only.end(), t.workload) != only.end()) {
        out.push_back(t);
        out.back().samples_ms = timed_now_samples.empty() ? t.samples_ms : timed_now_samples;
      }
    }
    return out;
  }
  Result<CaseOutputs> fresh_outputs(const suite::Task& /*task*/,
                                    const std::vector<suite::ResolvedCall>& calls) override {
    rechecked += static_cast<int>(calls.size());
    CaseOutputs out(calls.size());
    for (auto& rc : out) {
      rc.outputs.push_back(tensor_leaf(expected_values));
      if (!working_values.empty()) {
        rc.working.push_back(tensor_leaf(working_values));
      }
    }
    return out;
  }
  bool timings_fresh = false;  ///< timings() reports the reference as timed just now
  int rechecked = 0;
  int timed_now = 0;                  ///< timings_now() calls
  std::vector<int> timed_now_only;    ///< the workloads the last timings_now() call asked for
  std::vector<double> timed_now_samples;  ///< what timings_now() reads, when set
  bool candidate_killed_first = false;  ///< the channel was killed when timings_now() ran
  std::string timings_now_error;
  const FakeChannel* channel = nullptr;
  std::vector<float> working_values;  ///< the recheck's working-precision reference, if any

  static OutputLeaf tensor_leaf(const std::vector<float>& values) {
    OutputLeaf leaf;
    leaf.path = "out";
    leaf.kind = LeafKind::tensor;
    leaf.tensor.dtype = DType::float32;
    leaf.tensor.shape = {2, 3};
    leaf.tensor.device = "cpu";
    leaf.tensor.data.resize(values.size() * sizeof(float));
    std::memcpy(leaf.tensor.data.data(), values.data(), leaf.tensor.data.size());
    return leaf;
  }
};

Frame frame(Json header, std::vector<std::uint8_t> payload = {}) {
  return Frame{std::move(header), std::move(payload)};
}

Frame loaded() { return frame(Json{{"op", "loaded"}, {"ok", true}, {"handle", 1}}); }

/// One ok result whose output is `values` as a 2x3 tensor of `dtype`, appended to `payload`.
Json ok_result(int index, const std::vector<float>& values, std::vector<std::uint8_t>& payload,
               const std::string& dtype = "float32", int launches = 1) {
  std::size_t offset = payload.size();
  payload.resize(offset + values.size() * sizeof(float));
  std::memcpy(payload.data() + offset, values.data(), values.size() * sizeof(float));
  Json tensor{{"dtype", dtype},
              {"shape", {2, 3}},
              {"device", "cpu"},
              {"offset", offset},
              {"nbytes", values.size() * sizeof(float)}};
  return Json{{"index", index},
              {"status", "ok"},
              {"time_ms", 0.5},
              {"triton_launches", launches},
              {"outputs", Json::array({Json{{"path", "out"}, {"kind", "tensor"}, {"tensor", tensor}}})}};
}

Json error_result(int index, const std::string& type, const std::string& kind = "runtime_error") {
  return Json{{"index", index},
              {"status", "error"},
              {"error", {{"kind", kind}, {"type", type}, {"types", {type}}, {"message", "boom"}}}};
}

Json not_run(int index) { return Json{{"index", index}, {"status", "not_run"}}; }

Frame cases(Json results, std::vector<std::uint8_t> payload = {}) {
  return frame(Json{{"op", "cases"}, {"results", std::move(results)}, {"triton_launches", 1}},
               std::move(payload));
}

/// A `timings` reply: workload 0 timed ok with these samples.
Frame timings_of(std::vector<double> samples) {
  return frame(Json{{"op", "timings"},
                    {"results", Json::array({{{"index", 0}, {"status", "ok"},
                                              {"samples_ms", std::move(samples)}}})}});
}

/// An honest reply: every case returns the reference's values.
Frame honest_cases() {
  std::vector<std::uint8_t> payload;
  Json results = Json::array();
  for (int i = 0; i < case_count; ++i) {
    results.push_back(ok_result(i, expected_values, payload));
  }
  return cases(results, payload);
}

class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Json t = suite::testing::valid_task("Math/abs.py", "abs");
    Json c = t["cases"][0];
    for (int i = 1; i < task_cases; ++i) {
      c["name"] = fmt::format("case{}", i);
      t["cases"].push_back(c);
    }
    if (raising_first_case) {
      t["cases"][0]["raises"] = {"ValueError"};
    }
    auto task = suite::load_task(suite::testing::write_task(root_, t), "Math/abs.py");
    ASSERT_TRUE(task.ok()) << task.error().what();
    task_ = std::move(task).value();
    options_.perf = false;
  }

  store::EvaluationRecord evaluate() { return evaluate_all().record; }

  /// The evaluation of a worker that answers each case in a reply of its own, with the
  /// reference's values.
  store::EvaluationRecord answer_each_case_alone_honestly() {
    channel_.say(loaded());
    for (int i = 0; i < case_count; ++i) {
      std::vector<std::uint8_t> payload;
      Json results = Json::array({ok_result(i, expected_values, payload)});
      channel_.say(cases(results, payload));
    }
    return evaluate();
  }

  /// The evaluation of a worker that answers its first run_cases request with cases 0 and 1.
  store::EvaluationRecord answer_two_results_to_the_first_request() {
    std::vector<std::uint8_t> payload;
    Json two = Json::array({ok_result(0, expected_values, payload),
                            ok_result(1, expected_values, payload)});
    channel_.say(loaded());
    channel_.say(cases(two, payload));
    return evaluate();
  }

  EvaluationResult evaluate_all() {
    auto contract = compare::parse_contract("default");
    EXPECT_TRUE(contract.ok());
    references_.channel = &channel_;
    JudgeContext ctx{options_, references_, lock_, 1, "cpu", nullptr};
    ctx.fresh_candidate = fresh_candidate_;
    ctx.quiet_host = quiet_host_;
    submit::Submission s{"Math/abs.py", "def abs(x, dim): ...", "test", "line 1", 0};
    return evaluate_candidate(ctx, channel_, s, "id", task_, contract.value());
  }

  bool raising_first_case = false;
  std::function<std::unique_ptr<CandidateChannel>()> fresh_candidate_;
  std::function<std::shared_ptr<void>()> quiet_host_;
  kbx::testing::ScopedTempDir root_;
  suite::Task task_;
  RunOptions options_;
  FakeReferences references_;
  sandbox::GpuLock lock_;
  FakeChannel channel_;
};

TEST_F(JudgeTest, HonestCorrectRepliesPass) {
  channel_.say(loaded());
  channel_.say(honest_cases());
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_TRUE(rec.exe_ok);
  EXPECT_EQ(rec.cases.size(), 4U);
  EXPECT_EQ(rec.cases.back().name, "small/recheck");
  EXPECT_TRUE(channel_.killed);
  // The candidate is never sent what the reference knows.
  ASSERT_EQ(channel_.requests.size(), 2U);
  for (const auto& c : channel_.requests[1]["cases"]) {
    EXPECT_FALSE(c.value("exact", false));
    EXPECT_FALSE(c.contains("canonical"));
    EXPECT_FALSE(c.value("bound", false));
  }
}

TEST_F(JudgeTest, WrongValuesAreIncorrect) {
  std::vector<std::uint8_t> payload;
  Json results = Json::array();
  for (int i = 0; i < case_count; ++i) {
    results.push_back(ok_result(i, std::vector<float>(6, 0.0F), payload));
  }
  channel_.say(loaded());
  channel_.say(cases(results, payload));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "incorrect");
  EXPECT_TRUE(rec.call_ok);
  EXPECT_FALSE(rec.exe_ok);
}

TEST_F(JudgeTest, EveryCaseNotRunIsAProtocolViolationNeverAPass) {
  channel_.say(loaded());
  channel_.say(cases(Json::array({not_run(0), not_run(1), not_run(2), not_run(3)})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "protocol_violation");
  EXPECT_CONTAINS(rec.detail, "no earlier case failed");
  EXPECT_FALSE(rec.exe_ok);
}

TEST_F(JudgeTest, NotRunAfterAnOkCaseIsAViolation) {
  std::vector<std::uint8_t> payload;
  Json results = Json::array({ok_result(0, expected_values, payload), not_run(1), not_run(2),
                              not_run(3)});
  channel_.say(loaded());
  channel_.say(cases(results, payload));
  EXPECT_EQ(evaluate().outcome, "protocol_violation");
}

TEST_F(JudgeTest, NotRunAfterARealErrorIsThatError) {
  channel_.say(loaded());
  channel_.say(cases(
      Json::array({error_result(0, "ValueError"), not_run(1), not_run(2), not_run(3)})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "runtime_error");
  EXPECT_EQ(rec.reason, "ValueError");
}

TEST_F(JudgeTest, ACaseThatRanAfterARunEndingErrorIsAViolation) {
  std::vector<std::uint8_t> payload;
  Json results = Json::array({error_result(0, "ValueError"), ok_result(1, expected_values, payload),
                              not_run(2), not_run(3)});
  channel_.say(loaded());
  channel_.say(cases(results, payload));
  EXPECT_EQ(evaluate().outcome, "protocol_violation");
}

// `kbx suite check --seeds N`: the task's cases are N draws, and each draw is a request of its own,
// so the replies of many draws never meet the frame limit at once.
TEST_F(JudgeTest, ManyDrawsAreOneRequestPerDraw) {
  task_.draws = task_cases;  // one case per draw, then the recheck alone
  auto rec = answer_each_case_alone_honestly();
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_EQ(rec.cases.size(), 4U);
  ASSERT_EQ(channel_.requests.size(), 1U + case_count);
  for (int i = 0; i < case_count; ++i) {
    const Json& req = channel_.requests[1 + static_cast<std::size_t>(i)];
    EXPECT_EQ(req["op"], "run_cases");
    ASSERT_EQ(req["cases"].size(), 1U);
    EXPECT_EQ(req["cases"][0]["index"], i) << "each case keeps its place in the whole run";
  }
}

TEST_F(JudgeTest, ARunEndingErrorInOneDrawSendsNoLaterDraw) {
  task_.draws = task_cases;
  std::vector<std::uint8_t> payload;
  Json first = Json::array({ok_result(0, expected_values, payload)});
  channel_.say(loaded());
  channel_.say(cases(first, payload));
  channel_.say(cases(Json::array({error_result(1, "ValueError")})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "runtime_error") << rec.detail;
  EXPECT_EQ(rec.reason, "ValueError");
  EXPECT_EQ(channel_.requests.size(), 3U) << "the draws after the error are not asked for";
}

// A request for one case (a draw of `kbx suite check --seeds` here, or one of --fail-fast's)
// answered with two results.
class JudgeOneCaseRequestTest : public JudgeTest, public ::testing::WithParamInterface<bool> {};

TEST_P(JudgeOneCaseRequestTest, AnsweredWithTwoResultsIsAViolation) {
  if (GetParam()) {
    options_.fail_fast = true;
  } else {
    task_.draws = task_cases;
  }
  auto rec = answer_two_results_to_the_first_request();
  EXPECT_EQ(rec.outcome, "protocol_violation");
  EXPECT_CONTAINS(rec.detail, "2 results for 1 case");
}

INSTANTIATE_TEST_SUITE_P(DrawsThenFailFast, JudgeOneCaseRequestTest, ::testing::Bool());

// `kbx eval --fail-fast`: one request per case, none after the first that fails.
TEST_F(JudgeTest, FailFastStopsAtTheFirstMismatch) {
  options_.fail_fast = true;
  channel_.say(loaded());
  std::vector<std::uint8_t> p0;
  std::vector<std::uint8_t> p1;
  Json first = Json::array({ok_result(0, expected_values, p0)});
  Json second = Json::array({ok_result(1, std::vector<float>(6, 0.0F), p1)});
  channel_.say(cases(first, p0));
  channel_.say(cases(second, p1));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "incorrect") << rec.detail;
  EXPECT_CONTAINS(rec.detail, "case 'case1' differs");
  EXPECT_CONTAINS(rec.detail, "the 2 cases after it were not run");
  ASSERT_EQ(channel_.requests.size(), 3U) << "no case is asked for after the mismatch";
  for (std::size_t i = 1; i < channel_.requests.size(); ++i) {
    ASSERT_EQ(channel_.requests[i]["cases"].size(), 1U);
    EXPECT_EQ(channel_.requests[i]["cases"][0]["index"], i - 1);
  }
  ASSERT_EQ(rec.cases.size(), 4U);
  EXPECT_EQ(rec.cases[0].status, "ok");
  EXPECT_EQ(rec.cases[1].status, "mismatch");
  EXPECT_EQ(rec.cases[2].status, "not_run");
  EXPECT_EQ(rec.cases[3].status, "not_run");
  EXPECT_FALSE(rec.exe_ok);
}

TEST_F(JudgeTest, FailFastPassesWhatAFullRunPasses) {
  options_.fail_fast = true;
  auto rec = answer_each_case_alone_honestly();
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_EQ(channel_.requests.size(), 1U + case_count);
  EXPECT_EQ(rec.cases.size(), 4U);
}

TEST_F(JudgeTest, FailFastStopsAtAnError) {
  options_.fail_fast = true;
  channel_.say(loaded());
  channel_.say(cases(Json::array({error_result(0, "ValueError")})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "runtime_error") << rec.detail;
  EXPECT_EQ(channel_.requests.size(), 2U);
  ASSERT_EQ(rec.cases.size(), 4U);
  EXPECT_EQ(rec.cases[3].status, "not_run");
}

TEST_F(JudgeTest, FailFastStillChecksEachReplysCases) {
  options_.fail_fast = true;
  channel_.say(loaded());
  // the worker may not say a case was not run when nothing failed
  channel_.say(cases(Json::array({not_run(0)})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "protocol_violation");
  EXPECT_CONTAINS(rec.detail, "no earlier case failed");
}

TEST(DecideCases, NotRunAfterAMismatchIsKbxsOwnOnlyUnderFailFast) {
  std::vector<suite::ResolvedCall> calls(3);
  std::vector<CaseResult> results(3);
  CaseJudgement j;
  for (const char* status : {"ok", "mismatch", "not_run"}) {
    store::CaseRecord c;
    c.name = status;
    c.status = status;
    j.cases.push_back(c);
  }
  JudgeRules rules;
  EXPECT_EQ(decide_cases(j, calls, results, rules).outcome, Outcome::protocol_violation);
  rules.fail_fast = true;
  Decision d = decide_cases(j, calls, results, rules);
  EXPECT_EQ(d.outcome, Outcome::incorrect);
  EXPECT_CONTAINS(d.detail, "the 1 case after it was not run");
  // not_run before any mismatch is never kbx's own
  std::swap(j.cases[1], j.cases[2]);
  EXPECT_EQ(decide_cases(j, calls, results, rules).outcome, Outcome::protocol_violation);
}

class JudgeRaisingTest : public JudgeTest {
 protected:
  void SetUp() override {
    raising_first_case = true;
    JudgeTest::SetUp();
  }
};

TEST_F(JudgeRaisingTest, NotRunAfterAnExpectedErrorIsAViolation) {
  channel_.say(loaded());
  channel_.say(cases(
      Json::array({error_result(0, "ValueError"), not_run(1), not_run(2), not_run(3)})));
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "protocol_violation");
}

TEST_F(JudgeRaisingTest, TheExpectedErrorPassesAndTheRestAreCompared) {
  std::vector<std::uint8_t> payload;
  Json results = Json::array({error_result(0, "ValueError"), ok_result(1, expected_values, payload),
                              ok_result(2, expected_values, payload),
                              ok_result(3, expected_values, payload)});
  channel_.say(loaded());
  channel_.say(cases(results, payload));
  EXPECT_EQ(evaluate().outcome, "ok");
}

TEST_F(JudgeTest, CountsAndIndexesAreChecked) {
  std::vector<std::uint8_t> payload;
  Json one = ok_result(0, expected_values, payload);
  for (const Json& results :
       {Json::array({one}),                              // too few
        Json::array({one, one, one, one, one}),          // too many
        Json::array({one, one, one, one}),               // index 0 four times
        Json::array({ok_result(3, expected_values, payload), ok_result(2, expected_values, payload),
                     ok_result(1, expected_values, payload),
                     ok_result(0, expected_values, payload)}),  // out of order
        Json::array({one, ok_result(1, expected_values, payload),
                     ok_result(2, expected_values, payload),
                     ok_result(99, expected_values, payload)})}) {  // out of range
    channel_.script.clear();
    channel_.say(loaded());
    channel_.say(cases(results, payload));
    auto rec = evaluate();
    EXPECT_EQ(rec.outcome, "protocol_violation") << results.dump();
  }
}

TEST_F(JudgeTest, MalformedOutputsAreViolations) {
  struct Hostile {
    const char* what;
    std::function<void(Json&, std::vector<std::uint8_t>&)> spoil;
  };
  std::vector<Hostile> attacks{
      {"unknown dtype", [](Json& r, auto&) { r["outputs"][0]["tensor"]["dtype"] = "float8_e4m3"; }},
      {"bytes past the payload", [](Json& r, auto&) { r["outputs"][0]["tensor"]["offset"] = 1 << 20; }},
      {"nbytes that disagree with the shape",
       [](Json& r, auto&) { r["outputs"][0]["tensor"]["nbytes"] = 8; }},
      {"negative dimension", [](Json& r, auto&) { r["outputs"][0]["tensor"]["shape"] = {-2, -3}; }},
      {"unknown leaf kind", [](Json& r, auto&) { r["outputs"][0]["kind"] = "trust_me"; }},
      {"unknown status", [](Json& r, auto&) { r["status"] = "passed"; }},
      {"negative launch count", [](Json& r, auto&) { r["triton_launches"] = -5; }},
      {"string index", [](Json& r, auto&) { r["index"] = "0"; }},
      {"outputs not a list", [](Json& r, auto&) { r["outputs"] = "out"; }},
  };
  for (const auto& attack : attacks) {
    std::vector<std::uint8_t> payload;
    Json results = Json::array();
    for (int i = 0; i < case_count; ++i) {
      results.push_back(ok_result(i, expected_values, payload));
    }
    attack.spoil(results[0], payload);
    channel_.script.clear();
    channel_.say(loaded());
    channel_.say(cases(results, payload));
    auto rec = evaluate();
    EXPECT_EQ(rec.outcome, "protocol_violation") << attack.what << ": " << rec.detail;
    EXPECT_FALSE(rec.exe_ok) << attack.what;
  }
}

TEST_F(JudgeTest, ATextLeafInPlaceOfATensorIsIncorrect) {
  Json leaf{{"path", "out"}, {"kind", "repr"}, {"value", "tensor([1., -2., 3.5, 0.25, 8., -1.])"}};
  Json results = Json::array();
  for (int i = 0; i < case_count; ++i) {
    results.push_back(Json{{"index", i}, {"status", "ok"}, {"triton_launches", 1},
                           {"outputs", Json::array({leaf})}});
  }
  channel_.say(loaded());
  channel_.say(cases(results));
  EXPECT_EQ(evaluate().outcome, "incorrect");
}

TEST_F(JudgeTest, RepliesOfTheWrongKindAreViolations) {
  channel_.say(frame(Json{{"op", "cases"}, {"results", Json::array()}}));  // to a load request
  EXPECT_EQ(evaluate().outcome, "protocol_violation");

  channel_.script.clear();
  channel_.say(loaded());
  channel_.say(frame(Json{{"op", "error"}, {"error", {{"kind", "protocol_error"}}}}));
  EXPECT_EQ(evaluate().outcome, "protocol_violation");

  channel_.script.clear();
  channel_.say(loaded());
  channel_.say(frame(Json{{"op", "timings"}, {"results", Json::array()}}));
  EXPECT_EQ(evaluate().outcome, "protocol_violation");

  channel_.script.clear();
  channel_.say(frame(Json{{"op", "loaded"}, {"ok", "yes"}}));
  EXPECT_EQ(evaluate().outcome, "protocol_violation");

  channel_.script.clear();
  channel_.say(loaded());
  channel_.fail(ReadFailure::protocol, "frame header is not JSON");
  EXPECT_EQ(evaluate().outcome, "protocol_violation");
}

// A float handle was read with value<int>(), an unchecked cast (undefined behaviour for 1e300).
TEST_F(JudgeTest, ALoadedReplyWhoseHandleIsNotAnIntegerIsAViolation) {
  for (const Json& bad : {Json(1e300), Json(1.5), Json("1")}) {
    channel_.script.clear();
    channel_.say(frame(Json{{"op", "loaded"}, {"ok", true}, {"handle", bad}}));
    channel_.say(honest_cases());
    auto rec = evaluate();
    EXPECT_EQ(rec.outcome, "protocol_violation") << bad.dump();
    EXPECT_CONTAINS(rec.detail, "handle") << rec.detail;
  }
}

TEST_F(JudgeTest, NoTritonLaunchIsNotTriton) {
  std::vector<std::uint8_t> payload;
  Json results = Json::array();
  for (int i = 0; i < case_count; ++i) {
    results.push_back(ok_result(i, expected_values, payload, "float32", /*launches=*/0));
  }
  channel_.say(loaded());
  channel_.say(cases(results, payload));
  EXPECT_EQ(evaluate().outcome, "not_triton");
}

TEST_F(JudgeTest, PyTorchDoingTheWorkBesideATokenLaunchIsNotTriton) {
  auto reply_with = [&](std::vector<bool> reached) {
    std::vector<std::uint8_t> payload;
    Json results = Json::array();
    for (int i = 0; i < case_count; ++i) {
      Json r = ok_result(i, expected_values, payload);
      r["triton_output"] = static_cast<bool>(reached[static_cast<std::size_t>(i)]);
      r["torch_ops"] = 3;
      results.push_back(r);
    }
    channel_.script.clear();
    channel_.say(loaded());
    channel_.say(cases(results, payload));
    return evaluate();
  };
  auto rec = reply_with({false, false, false, false});
  EXPECT_EQ(rec.outcome, "not_triton");
  EXPECT_EQ(rec.reason, "torch_did_the_work");
  // A PyTorch fallback for some shapes is allowed, as long as Triton reached some output.
  EXPECT_EQ(reply_with({false, true, false, false}).outcome, "ok");
  options_.rules = "kernelbenchx";
  options_.require_triton = false;
  EXPECT_EQ(reply_with({false, false, false, false}).outcome, "ok");
}

TEST_F(JudgeTest, HangsDeathsAndLimitsHaveTheirOwnOutcomes) {
  channel_.say(loaded());
  channel_.fail(ReadFailure::timeout);
  EXPECT_EQ(evaluate().outcome, "timeout");

  channel_.script.clear();
  channel_.say(loaded());
  channel_.fail(ReadFailure::closed);
  channel_.status = sandbox::ExitStatus{std::nullopt, SIGSEGV};
  EXPECT_EQ(evaluate().outcome, "crashed");

  channel_.script.clear();
  channel_.fail(ReadFailure::closed);
  channel_.status = sandbox::ExitStatus{std::nullopt, SIGXCPU};
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "limit_exceeded");
  EXPECT_EQ(rec.reason, "cpu_time");

  channel_.script.clear();
  channel_.fail(ReadFailure::closed);
  channel_.status = sandbox::ExitStatus{std::nullopt, SIGXFSZ};
  EXPECT_EQ(evaluate().reason, "file_size");
}

class JudgePerfTest : public JudgeTest {
 protected:
  void SetUp() override {
    JudgeTest::SetUp();
    Json t = suite::testing::valid_task("Math/abs.py", "abs");
    options_.perf = true;
    options_.device = "cuda";  // nothing here touches a GPU: the channel is fake
    suite::Workload w;
    task_.workloads = {w};
    store::TimingRecord ref;
    ref.warmup_calls = 3;
    ref.samples_ms = {1.0, 1.0};
    references_.reference_timings = {ref};
  }

  /// An honest candidate whose timing reply holds `results`, rechecked with `recheck_values`.
  EvaluationResult time_all_with(Json results,
                                 const std::vector<float>& recheck_values = expected_values) {
    channel_.say(loaded());
    channel_.say(honest_cases());
    channel_.say(frame(Json{{"op", "timings"}, {"results", std::move(results)}}));
    std::vector<std::uint8_t> payload;
    Json recheck = Json::array({ok_result(0, recheck_values, payload)});
    channel_.say(cases(recheck, payload));
    return evaluate_all();
  }

  store::EvaluationRecord time_with(Json results,
                                    const std::vector<float>& recheck_values = expected_values) {
    return time_all_with(std::move(results), recheck_values).record;
  }
};

TEST_F(JudgePerfTest, TheRecheckAllowsPerfSizedRoundingButNotStaleValues) {
  channel_.delay = std::chrono::milliseconds(5);
  std::vector<float> rounded = expected_values;
  for (auto& v : rounded) {
    v *= 1.0002F;  // 2e-4 relative: beyond the cases' 1e-5, within the recheck's 1e-3
  }
  auto rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}}), rounded);
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_TRUE(rec.perf_ok);
  // Only the arguments the task writes into come back from a recheck (none for abs).
  EXPECT_EQ(channel_.requests.back()["cases"][0]["mutated_args"], Json::array());
}

TEST_F(JudgePerfTest, ATimedWorkloadIsRecheckedWithFreshInputs) {
  channel_.delay = std::chrono::milliseconds(5);
  auto rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}}),
                       std::vector<float>(6, 0.0F));  // stale values after timing
  EXPECT_EQ(rec.outcome, "incorrect");
  EXPECT_EQ(rec.reason, "perf_recheck_mismatch");
  EXPECT_FALSE(rec.perf_ok);
  EXPECT_FALSE(rec.exe_ok);
  EXPECT_EQ(references_.rechecked, 1);
  const Json& recheck = channel_.requests.back();
  EXPECT_EQ(recheck["op"], "run_cases");
  EXPECT_EQ(recheck["cases"][0]["name"], "perf/0/recheck");
  EXPECT_EQ(recheck["cases"][0]["seed"],
            suite::derive_seed("Math/abs.py", "perfcheck|0", options_.seed));
  // A perf-sized input drawn on the CPU took seconds: the recheck draws on the device, as timing.
  EXPECT_EQ(recheck["cases"][0].value("draw_on_device", false), true);
}

TEST_F(JudgePerfTest, AnIllConditionedRecheckAllowsTheReferencesOwnRoundingButNotStaleValues) {
  channel_.delay = std::chrono::milliseconds(5);
  // The reference at working precision lands 0.5 from the exact result on element 0 (a nearly
  // singular solve): a correct kernel may land a few times that far, a stale one is caught.
  references_.working_values = expected_values;
  references_.working_values[0] += 0.5F;
  std::vector<float> other_rounding = expected_values;
  other_rounding[0] -= 1.5F;
  other_rounding[4] += 2.0F;
  auto ok = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}}),
                      other_rounding);
  EXPECT_EQ(ok.outcome, "ok") << ok.detail;
  EXPECT_NE(ok.perf_note.find("absolute tolerance widened by 5"), std::string::npos) << ok.perf_note;

  channel_.script.clear();
  std::vector<float> stale = expected_values;
  stale[4] = -8;  // off by 16, beyond ten times the reference's own 0.5
  auto bad = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}}), stale);
  EXPECT_EQ(bad.reason, "perf_recheck_mismatch");
}

TEST_F(JudgePerfTest, TritonKernelsMustRunAShareOfTheGpuTime) {
  channel_.delay = std::chrono::milliseconds(5);
  auto timed = [](double triton_ms, double other_ms) {
    return Json::array({{{"index", 0},
                         {"status", "ok"},
                         {"samples_ms", {0.5}},
                         {"kernel_calls", 1},
                         {"kernel_busy_ms", 0.45},
                         {"inventory_ms", {0.5}},
                         {"inventory_kernel_ms", {0.45}},
                         {"kernels",
                          {{{"name", "sm90_gemm"}, {"origin", "other"}, {"launches", 1},
                            {"gpu_ms", other_ms}},
                           {{"name", "token"}, {"origin", "triton"}, {"launches", 1},
                            {"gpu_ms", triton_ms}}}}}});
  };
  auto token = time_with(timed(0.002, 0.448));
  EXPECT_EQ(token.outcome, "not_triton");
  EXPECT_EQ(token.reason, "triton_share");
  EXPECT_NE(token.detail.find("sm90_gemm"), std::string::npos) << token.detail;
  EXPECT_FALSE(token.exe_ok);
  ASSERT_TRUE(token.triton_share);
  EXPECT_NEAR(*token.triton_share, 0.002 / 0.45, 1e-9);
  ASSERT_EQ(token.kernels.size(), 2U);
  EXPECT_EQ(token.kernels[0].stage, "perf/0");

  channel_.script.clear();
  auto epilogue = time_with(timed(0.01, 0.44));  // a Triton epilogue beside a library matmul
  EXPECT_EQ(epilogue.outcome, "ok") << epilogue.detail;

  channel_.script.clear();
  options_.require_triton = false;
  EXPECT_EQ(time_with(timed(0.0, 0.45)).outcome, "ok");
}

TEST_F(JudgePerfTest, HonestTimingsAreKept) {
  channel_.delay = std::chrono::milliseconds(5);
  auto rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.5}}}}));
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_TRUE(rec.perf_ok);
}

TEST_F(JudgePerfTest, AdjacentReferenceTimingComesAfterTheCandidateIsKilled) {
  channel_.delay = std::chrono::milliseconds(5);
  options_.reference_timing = "adjacent";
  auto result =
      time_all_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.5}}}}));
  EXPECT_EQ(result.record.outcome, "ok") << result.record.detail;
  EXPECT_TRUE(result.record.perf_ok) << result.record.perf_note;
  EXPECT_EQ(references_.timed_now, 1);
  EXPECT_TRUE(references_.candidate_killed_first);
  EXPECT_EQ(references_.rechecked, 1);  // the recheck ran before the kill
  ASSERT_TRUE(result.fresh_reference_timings.has_value());
  EXPECT_TRUE(result.reference_for_submission);
  EXPECT_EQ(result.record.reference_session_id, 1);
}

TEST_F(JudgePerfTest, AdjacentReferenceTimingFailuresLosePerfNotTheVerdict) {
  channel_.delay = std::chrono::milliseconds(5);
  options_.reference_timing = "adjacent";
  references_.timings_now_error = "the reference worker died";
  auto rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.5}}}}));
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_FALSE(rec.perf_ok);
  EXPECT_NE(rec.perf_note.find("reference timing: the reference worker died"), std::string::npos)
      << rec.perf_note;
  references_.timings_now_error.clear();
  store::TimingRecord failed;
  failed.status = "error";
  failed.error = "out of memory";
  references_.reference_timings = {failed};
  channel_.script.clear();
  rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.5}}}}));
  EXPECT_FALSE(rec.perf_ok);
  EXPECT_EQ(rec.perf_note, "perf failed on workload 0: reference: out of memory");
}

TEST_F(JudgePerfTest, InterleavedTimingPoolsRoundsInFreshProcesses) {
  // Round 1 in the evaluation's worker (cases, timing, recheck), round 2 in a fresh one (load,
  // timing, recheck); the reference timed after each, with its candidate already killed.
  channel_.delay = std::chrono::milliseconds(5);
  options_.reference_timing = "interleaved";
  std::vector<std::uint8_t> payload;
  Json recheck = Json::array({ok_result(0, expected_values, payload)});
  channel_.say(loaded());
  channel_.say(honest_cases());
  channel_.say(timings_of({0.5, 0.5}));
  channel_.say(cases(recheck, payload));
  FakeChannel second;
  FakeChannel* round2 = &second;
  round2->delay = std::chrono::milliseconds(5);
  round2->say(loaded());
  round2->say(timings_of({0.7, 0.7}));
  round2->say(cases(recheck, payload));
  int made = 0;
  // The pool starts workers under a shared hold: a worker asked for inside the exclusive hold
  // would never come. The fake pool checks that the GPU could be held shared when asked.
  std::future<void> shared_hold;
  bool asked_outside_the_exclusive_hold = false;
  fresh_candidate_ = [&]() -> std::unique_ptr<CandidateChannel> {
    ++made;
    shared_hold = std::async(std::launch::async, [&] { sandbox::SharedGpuHold hold(lock_); });
    asked_outside_the_exclusive_hold =
        shared_hold.wait_for(std::chrono::milliseconds(500)) == std::future_status::ready;
    return std::make_unique<ForwardingChannel>(second);
  };
  auto result = evaluate_all();
  EXPECT_TRUE(asked_outside_the_exclusive_hold);
  EXPECT_EQ(result.record.outcome, "ok") << result.record.detail;
  EXPECT_TRUE(result.record.perf_ok) << result.record.perf_note;
  EXPECT_EQ(made, 1);
  EXPECT_EQ(references_.timed_now, 2);
  EXPECT_EQ(references_.rechecked, 2);  // each round's process is rechecked
  EXPECT_TRUE(round2->killed);
  ASSERT_EQ(round2->requests.size(), 3U);
  EXPECT_EQ(round2->requests[0]["op"], "load");
  EXPECT_EQ(round2->requests[1]["op"], "time");
  EXPECT_EQ(round2->requests[2]["op"], "run_cases");
  ASSERT_EQ(result.record.timings.size(), 1U);
  EXPECT_EQ(result.record.timings[0].samples_ms, (std::vector<double>{0.5, 0.5, 0.7, 0.7}));
  ASSERT_TRUE(result.fresh_reference_timings.has_value());
  EXPECT_EQ((*result.fresh_reference_timings)[0].samples_ms,
            (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
  EXPECT_TRUE(result.reference_for_submission);
}

TEST_F(JudgePerfTest, InterleavedTimingJudgesTheLaterRoundsToo) {
  // A candidate that computes honestly where its cases ran and returns stale values in a process
  // that only times is caught by the later round's recheck; one that dies there loses its verdict.
  channel_.delay = std::chrono::milliseconds(5);
  options_.reference_timing = "interleaved";
  std::vector<std::uint8_t> payload;
  Json recheck = Json::array({ok_result(0, expected_values, payload)});
  std::vector<std::uint8_t> stale_payload;
  std::vector<float> stale = expected_values;
  stale[2] = 40;
  Json stale_recheck = Json::array({ok_result(0, stale, stale_payload)});
  auto script_round1 = [&] {
    channel_.script.clear();
    channel_.say(loaded());
    channel_.say(honest_cases());
    channel_.say(timings_of({0.5, 0.5}));
    channel_.say(cases(recheck, payload));
  };
  script_round1();
  fresh_candidate_ = [&]() -> std::unique_ptr<CandidateChannel> {
    auto c = std::make_unique<FakeChannel>();
    c->delay = std::chrono::milliseconds(5);
    c->say(loaded());
    c->say(timings_of({0.01, 0.01}));
    c->say(cases(stale_recheck, stale_payload));
    return c;
  };
  auto rec = evaluate();
  EXPECT_EQ(rec.outcome, "incorrect");
  EXPECT_EQ(rec.reason, "perf_recheck_mismatch");
  EXPECT_NE(rec.detail.find("round 2"), std::string::npos) << rec.detail;
  EXPECT_FALSE(rec.exe_ok);
  EXPECT_FALSE(rec.perf_ok);

  script_round1();
  fresh_candidate_ = [&]() -> std::unique_ptr<CandidateChannel> {
    auto c = std::make_unique<FakeChannel>();
    c->say(loaded());
    c->fail(ReadFailure::closed);  // the worker dies while timed
    c->status = sandbox::ExitStatus{std::nullopt, SIGSEGV};
    return c;
  };
  rec = evaluate();
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;  // a death while timing loses perf, as in round 1
  EXPECT_FALSE(rec.perf_ok);
  EXPECT_NE(rec.perf_note.find("round 2"), std::string::npos) << rec.perf_note;

  script_round1();
  fresh_candidate_ = nullptr;  // no pool: one round, as adjacent
  rec = evaluate();
  EXPECT_EQ(rec.outcome, "ok") << rec.detail;
  EXPECT_TRUE(rec.perf_ok);
  EXPECT_NE(rec.perf_note.find("one round"), std::string::npos) << rec.perf_note;
}

TEST(MergeTimingRounds, PoolsEventRoundsAndKeepsFailures) {
  auto record = [](std::vector<double> samples, bool brackets = false) {
    store::TimingRecord t;
    t.samples_ms = samples;
    t.bracket_ms = {samples.front() + 0.1};
    t.timed_by_bracket = brackets;
    t.host_ms = samples.front();
    t.brackets_min_ms = samples.front() + 0.1;
    t.method_note = brackets ? "fastest bracket" : "";
    t.warmup_calls = static_cast<int>(samples.size());
    return t;
  };
  // Workload 0: two event rounds pooled; 1: the bracket round left out beside an event round;
  // 2: both rounds by brackets, pooled as brackets; 3: a failure in round 2 stands.
  store::TimingRecord failed;
  failed.status = "error";
  failed.error = "out of memory";
  std::vector<std::vector<store::TimingRecord>> rounds{
      {record({1.0, 1.2}), record({2.0}), record({3.0}, true), record({4.0})},
      {record({1.1}), record({9.0}, true), record({3.5}, true), failed}};
  for (std::size_t i = 0; i < rounds[0].size(); ++i) {
    rounds[0][i].workload = rounds[1][i].workload = static_cast<int>(i);
  }
  auto merged = merge_timing_rounds(rounds);
  ASSERT_EQ(merged.size(), 4U);
  EXPECT_EQ(merged[0].samples_ms, (std::vector<double>{1.0, 1.2, 1.1}));
  EXPECT_FALSE(merged[0].timed_by_bracket);
  EXPECT_EQ(merged[0].bracket_ms.size(), 2U);
  EXPECT_DOUBLE_EQ(*merged[0].host_ms, 1.0);
  EXPECT_DOUBLE_EQ(*merged[0].events_median_ms, 1.1);
  EXPECT_EQ(merged[0].warmup_calls, 2);  // the first round's
  EXPECT_EQ(merged[1].samples_ms, (std::vector<double>{2.0}));
  EXPECT_FALSE(merged[1].timed_by_bracket);
  EXPECT_TRUE(merged[1].method_note.empty());
  EXPECT_EQ(merged[2].samples_ms, (std::vector<double>{3.0, 3.5}));
  EXPECT_TRUE(merged[2].timed_by_bracket);
  EXPECT_EQ(merged[2].method_note, "fastest bracket");
  EXPECT_DOUBLE_EQ(*merged[2].brackets_min_ms, 3.1);
  EXPECT_EQ(merged[3].status, "error");
  EXPECT_EQ(merged[3].error, "out of memory");
  EXPECT_TRUE(merge_timing_rounds({}).empty());
  EXPECT_EQ(merge_timing_rounds({rounds[0]}).size(), 4U);
}

TEST_F(JudgePerfTest, SessionReferenceTimingNeverTimesTheReferenceNow) {
  channel_.delay = std::chrono::milliseconds(5);
  auto result = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.5}}}}));
  EXPECT_TRUE(result.perf_ok);
  EXPECT_EQ(references_.timed_now, 0);
}

TEST_F(JudgePerfTest, AHostSynchronisingReferencesCandidateIsTimedWithTheHostQuiet) {
  // The reference was timed just now, in this hold (its first candidate): the quiet (worker
  // starts held off the host) is taken right before the candidate's time request and ends
  // before its perf recheck, which runs outside the exclusive hold.
  references_.timings_fresh = true;
  std::vector<std::string> events;
  quiet_host_ = [&]() -> std::shared_ptr<void> {
    events.push_back(fmt::format("quiet after {} requests", channel_.requests.size()));
    return std::shared_ptr<void>(new int(0), [&](void* p) {
      delete static_cast<int*>(p);
      events.push_back(fmt::format("ended after {} requests", channel_.requests.size()));
    });
  };
  auto& ref = references_.reference_timings[0];
  ref.samples_ms = {1.0, 1.0, 1.0};
  ref.kernel_busy_ms = 0.2;  // the host's share: 0.8 ms of each 1 ms sample
  channel_.delay = std::chrono::milliseconds(5);
  auto rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.9, 0.9}}}}));
  EXPECT_TRUE(rec.perf_ok) << rec.perf_note;
  ASSERT_EQ(channel_.requests.size(), 4U);  // load, cases, time, recheck
  EXPECT_EQ(channel_.requests[2]["op"], "time");
  EXPECT_EQ(events, (std::vector<std::string>{"quiet after 2 requests", "ended after 3 requests"}));
  EXPECT_EQ(references_.timed_now, 0);

  // A reference the GPU keeps busy: its candidates are timed as they come.
  events.clear();
  channel_.requests.clear();
  ref.kernel_busy_ms = 0.9;
  rec = time_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.9, 0.9}}}}));
  EXPECT_TRUE(rec.perf_ok) << rec.perf_note;
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(references_.timed_now, 0);
}

TEST_F(JudgePerfTest, AHostSynchronisingReferenceTimedEarlierIsTimedAgainNextToTheCandidate) {
  // A cached reference (or one timed for an earlier candidate): the host it was timed on is not
  // the host now. The candidate is timed and rechecked under the quiet, killed, and the
  // reference timed again in the same hold; this submission's speedup is against that timing.
  std::vector<std::string> events;
  quiet_host_ = [&]() -> std::shared_ptr<void> {
    events.push_back(fmt::format("quiet after {} requests", channel_.requests.size()));
    return std::shared_ptr<void>(new int(0), [&](void* p) {
      delete static_cast<int*>(p);
      events.push_back(fmt::format("ended after {} requests, reference timed {} times",
                                   channel_.requests.size(), references_.timed_now));
    });
  };
  auto& ref = references_.reference_timings[0];
  ref.samples_ms = {1.0, 1.0, 1.0};
  ref.kernel_busy_ms = 0.2;
  channel_.delay = std::chrono::milliseconds(5);
  const Json timed = Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.9, 0.9}}}});
  auto result = time_all_with(timed);
  EXPECT_TRUE(result.record.perf_ok) << result.record.perf_note;
  ASSERT_EQ(channel_.requests.size(), 4U);  // load, cases, time, recheck
  EXPECT_EQ(references_.timed_now, 1);
  EXPECT_TRUE(references_.candidate_killed_first);
  EXPECT_EQ(events, (std::vector<std::string>{"quiet after 2 requests",
                                              "ended after 4 requests, reference timed 1 times"}));
  EXPECT_TRUE(result.reference_for_submission);
  ASSERT_TRUE(result.fresh_reference_timings);
  EXPECT_EQ((*result.fresh_reference_timings)[0].samples_ms, ref.samples_ms);

  // The reference's timing failing now (kbx's side): the earlier one stands, and says so.
  references_.timed_now = 0;
  references_.timings_now_error = "the reference worker died";
  channel_.requests.clear();
  result = time_all_with(timed);
  EXPECT_TRUE(result.record.perf_ok) << result.record.perf_note;
  EXPECT_NE(result.record.perf_note.find("timing it again failed: the reference worker died"),
            std::string::npos)
      << result.record.perf_note;
  EXPECT_EQ(references_.timed_now, 1);
  EXPECT_FALSE(result.reference_for_submission);
  EXPECT_FALSE(result.fresh_reference_timings);
  references_.timings_now_error.clear();

  // Without a way to quiet the host (a caller that has none), still timed next to it.
  quiet_host_ = nullptr;
  references_.timed_now = 0;
  channel_.requests.clear();
  auto rec = time_with(timed);
  EXPECT_TRUE(rec.perf_ok) << rec.perf_note;
  EXPECT_EQ(references_.timed_now, 1);

  // Not host-synchronising, yet the GPU idle for 40% of each sample (`svd` on an H100): the
  // host's state still moves it, so it is timed next to its reference too; at 80% busy it is not.
  ref.kernel_busy_ms = 0.6;
  references_.timed_now = 0;
  rec = time_with(timed);
  EXPECT_TRUE(rec.perf_ok) << rec.perf_note;
  EXPECT_EQ(references_.timed_now, 1);
  ref.kernel_busy_ms = 0.8;
  references_.timed_now = 0;
  rec = time_with(timed);
  EXPECT_TRUE(rec.perf_ok) << rec.perf_note;
  EXPECT_EQ(references_.timed_now, 0);
}

TEST_F(JudgePerfTest, OnlyTheHostShareWorkloadsOfAReferenceAreTimedAgain) {
  // Workload 0 leaves the GPU idle for 80% of a sample, workload 1 keeps it busy: the reference
  // timed earlier has workload 0 timed again next to the candidate, and keeps its timing of
  // workload 1, as a GPU-bound task keeps all of its.
  suite::Workload w1;
  w1.index = 1;
  task_.workloads.push_back(w1);
  auto& refs = references_.reference_timings;
  refs[0].samples_ms = {1.0, 1.0, 1.0};
  refs[0].kernel_busy_ms = 0.2;
  store::TimingRecord gpu_bound = refs[0];
  gpu_bound.workload = 1;
  gpu_bound.kernel_busy_ms = 0.95;
  refs.push_back(gpu_bound);
  references_.timed_now_samples = {0.7, 0.7};
  channel_.delay = std::chrono::milliseconds(5);
  auto result =
      time_all_with(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.9}}},
                                 {{"index", 1}, {"status", "ok"}, {"samples_ms", {0.9}}}}));
  EXPECT_TRUE(result.record.perf_ok) << result.record.perf_note;
  EXPECT_EQ(references_.timed_now, 1);
  EXPECT_EQ(references_.timed_now_only, (std::vector<int>{0}));
  ASSERT_TRUE(result.fresh_reference_timings);
  ASSERT_EQ(result.fresh_reference_timings->size(), 2U);
  EXPECT_EQ((*result.fresh_reference_timings)[0].samples_ms, (std::vector<double>{0.7, 0.7}));
  EXPECT_EQ((*result.fresh_reference_timings)[1].samples_ms, (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_TRUE(result.reference_for_submission);
}

TEST(WithTimingsReplaced, ReplacesByWorkloadAndKeepsTheRest) {
  std::vector<store::TimingRecord> base(3);
  for (int i = 0; i < 3; ++i) {
    base[i].workload = i;
    base[i].samples_ms = {1.0 + i};
  }
  store::TimingRecord again;
  again.workload = 2;
  again.samples_ms = {9.0};
  store::TimingRecord stray;  // a workload the base does not have: dropped
  stray.workload = 7;
  auto out = with_timings_replaced(base, {again, stray});
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[0].samples_ms, (std::vector<double>{1.0}));
  EXPECT_EQ(out[1].samples_ms, (std::vector<double>{2.0}));
  EXPECT_EQ(out[2].samples_ms, (std::vector<double>{9.0}));
  EXPECT_EQ(with_timings_replaced(base, {}).size(), 3U);
}

TEST_F(JudgePerfTest, ImpossibleTimingsAreViolations) {
  channel_.delay = std::chrono::milliseconds(5);
  for (const Json& results :
       {Json::array(),
        Json::array({{{"index", 3}, {"status", "ok"}, {"samples_ms", {0.5}}}}),
        Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.0}}}}),
        Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {-1.0}}}}),
        // more time than the whole request took by kbx's clock
        Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {60000.0}}}})}) {
    channel_.script.clear();
    auto rec = time_with(results);
    EXPECT_EQ(rec.outcome, "protocol_violation") << results.dump();
    EXPECT_FALSE(rec.perf_ok);
    EXPECT_FALSE(rec.exe_ok);
  }
}

TEST(FindCaseReplyViolation, AcceptsTheWorkersOwnShapes) {
  std::vector<suite::ResolvedCall> calls(3);
  calls[0].raises = {"ValueError"};
  auto result = [](int i, CaseStatus s, const std::string& kind = "runtime_error") {
    CaseResult r;
    r.index = i;
    r.status = s;
    if (s == CaseStatus::error) {
      r.error = Json{{"kind", kind}, {"type", "ValueError"}};
    }
    return r;
  };
  // An expected error does not end the run; a GPU fault does, even in a raising case.
  EXPECT_FALSE(find_case_reply_violation(
      calls, {result(0, CaseStatus::error), result(1, CaseStatus::ok), result(2, CaseStatus::ok)}));
  EXPECT_FALSE(find_case_reply_violation(calls, {result(0, CaseStatus::error, "gpu_fault"),
                                                 result(1, CaseStatus::not_run),
                                                 result(2, CaseStatus::not_run)}));
  EXPECT_FALSE(find_case_reply_violation(calls, {result(0, CaseStatus::ok),
                                                 result(1, CaseStatus::error),
                                                 result(2, CaseStatus::not_run)}));
  EXPECT_TRUE(find_case_reply_violation(calls, {result(0, CaseStatus::error),
                                                result(1, CaseStatus::not_run),
                                                result(2, CaseStatus::not_run)}));
}

}  // namespace
}  // namespace kbx::run

namespace kbx::run {
namespace {

TEST(ApplyStreamCheck, KeepsEventsWhenBracketsAgreeAndTakesBracketsWhenWorkEscaped) {
  store::TimingRecord honest{0, "ok", "", 2, {1.0, 1.1, 0.9}, {1.05, 1.1, 5.2}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(apply_stream_check(honest), TimedBy::events);
  EXPECT_EQ(honest.samples_ms, (std::vector<double>{1.0, 1.1, 0.9}));
  EXPECT_EQ(honest.events_median_ms, 1.0);
  EXPECT_EQ(honest.brackets_min_ms, 1.05);
  EXPECT_EQ(honest.method_note, "");

  store::TimingRecord tiny{0, "ok", "", 2, {0.004, 0.004}, {0.03, 0.035}, false, {}, 0, {}, {}, {}};
  // A host-bound small kernel: the brackets are sync overhead only.
  EXPECT_EQ(apply_stream_check(tiny), TimedBy::events);

  store::TimingRecord side{0, "ok", "", 2, {0.01, 0.01}, {0.9, 1.0, 1.1}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(apply_stream_check(side), TimedBy::brackets);
  EXPECT_TRUE(side.timed_by_bracket);
  EXPECT_EQ(side.samples_ms, (std::vector<double>{0.9, 1.0, 1.1}));
  EXPECT_NE(side.method_note.find("fastest bracket 0.9000 ms"), std::string::npos) << side.method_note;

  // A host-bound call (several PyTorch launches, 12 us of GPU work): its brackets are as long as
  // the host takes to launch it, not the events' device time.
  store::TimingRecord host_bound{0, "ok", "", 2, {0.0126, 0.0127}, {0.083, 0.085}, false, {}, 0, {}, {}, {}};
  host_bound.host_ms = 0.08;
  EXPECT_EQ(apply_stream_check(host_bound), TimedBy::events) << host_bound.method_note;
  host_bound.host_ms = std::nullopt;
  EXPECT_EQ(apply_stream_check(host_bound), TimedBy::brackets);
  EXPECT_NE(host_bound.method_note.find("host 0.0000 ms"), std::string::npos) << host_bound.method_note;
  store::TimingRecord side_fast_host{0, "ok", "", 2, {0.01, 0.01}, {0.9, 1.0}, false, {}, 0, {}, {}, {}};
  side_fast_host.host_ms = 0.02;  // launching is quick, the work ran on a side stream
  EXPECT_EQ(apply_stream_check(side_fast_host), TimedBy::brackets);

  store::TimingRecord forged{0, "ok", "", 2, {1e-6, 1e-6}, {0.02, 0.02}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(apply_stream_check(forged), TimedBy::brackets);  // under 1 us per call cannot be true

  store::TimingRecord none{0, "ok", "", 2, {1.0}, {}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(apply_stream_check(none), TimedBy::events);
}

store::KernelUse kernel(std::string origin, double gpu_ms) {
  return store::KernelUse{"perf/0", "k", std::move(origin), 2, gpu_ms};
}

TEST(ApplyStreamCheck, TakesBracketsWhenTheKernelsWereBusierThanTheEvents) {
  // CUPTI saw the GPU busy 1 ms per call while the events said 0.45 ms (a side stream); the
  // brackets, 0.9 ms, are within twice the events, but they see the work.
  store::TimingRecord t{0, "ok", "", 2, {0.45, 0.45}, {0.9, 0.95, 0.92}, false,
                        {kernel("other", 2.0)}, 2, 1.0, {1.0, 1.0}, {1.1, 1.1}};
  EXPECT_EQ(apply_stream_check(t), TimedBy::brackets);
  EXPECT_TRUE(t.timed_by_bracket);
  EXPECT_EQ(t.samples_ms, (std::vector<double>{0.9, 0.95, 0.92}));
  EXPECT_NE(t.method_note.find("GPU busy 1.0000 ms"), std::string::npos) << t.method_note;

  store::TimingRecord agree{0, "ok", "", 2, {1.0, 1.0}, {1.05, 1.1, 1.1}, false,
                            {kernel("triton", 1.9)}, 2, 0.95, {1.0, 1.0}, {1.1, 1.05}};
  EXPECT_EQ(apply_stream_check(agree), TimedBy::events);
  EXPECT_EQ(find_inventory_violation(agree), std::nullopt);
}

TEST(ApplyStreamCheck, TimesByTheInventoryCallsWhenTheTimedCallsDidLessWork) {
  // Results kept across calls on the same inputs: events 0.1 ms and brackets 0.15 ms a call,
  // while the inventory's calls, on inputs of their own, kept the GPU busy 1 ms each.
  store::TimingRecord kept{0, "ok", "", 2, {0.1, 0.1}, {0.15, 0.16, 0.15}, false,
                           {kernel("triton", 2.0)}, 2, 1.0, {1.0, 1.0}, {1.1, 1.2}};
  ASSERT_EQ(find_inventory_violation(kept), std::nullopt);
  EXPECT_EQ(apply_stream_check(kept), TimedBy::fresh_calls);
  EXPECT_TRUE(kept.timed_by_bracket);
  EXPECT_EQ(kept.samples_ms, (std::vector<double>{1.2}));  // the slowest inventory call
  EXPECT_EQ(kept.events_median_ms, 0.1);
  EXPECT_EQ(kept.brackets_min_ms, 0.15);
  EXPECT_NE(kept.method_note.find("GPU busy 1.0000 ms per call on inputs of its own"),
            std::string::npos)
      << kept.method_note;

  // The inventory's calls share one draw: a call that keeps its work does it in the first of them
  // only (1.1 ms), and the others reuse it (0.05 ms). Their median would be a reused call; the
  // slowest is the work a call on fresh inputs does.
  store::TimingRecord reused{0, "ok", "", 2, {0.01, 0.01}, {0.04, 0.05, 0.04}, false,
                             {kernel("triton", 1.0)}, 3, 1.0 / 3, {1.0, 0.0, 0.0},
                             {1.1, 0.05, 0.05}};
  ASSERT_EQ(find_inventory_violation(reused), std::nullopt);
  EXPECT_EQ(apply_stream_check(reused), TimedBy::fresh_calls);
  EXPECT_EQ(reused.samples_ms, (std::vector<double>{1.1}));
  EXPECT_NE(reused.method_note.find("slowest of the 3 inventory call(s)"), std::string::npos)
      << reused.method_note;

  // A call that keeps 30% of its work across calls on the same inputs: timed at 0.7 ms, while
  // the inventory's first call on its draw is busy 1 ms and the two after it 0.7 ms. Against
  // their mean (0.8 ms) the timed calls are within the 80% margin; against the busiest call,
  // which each call's busy time shows, they are not.
  store::TimingRecord partial{0, "ok", "", 2, {0.7, 0.7}, {0.72, 0.73, 0.72}, false,
                              {kernel("triton", 2.4)}, 3, 0.8, {1.0, 0.7, 0.7}, {1.1, 0.8, 0.8}};
  store::TimingRecord partial_mean_only = partial;
  EXPECT_EQ(apply_stream_check(partial_mean_only), TimedBy::events);
  partial.inventory_busy_ms = {1.0, 0.7, 0.7};
  ASSERT_EQ(find_inventory_violation(partial), std::nullopt);
  EXPECT_DOUBLE_EQ(fresh_call_busy_ms(partial), 1.0);
  EXPECT_EQ(apply_stream_check(partial), TimedBy::fresh_calls);
  EXPECT_EQ(partial.samples_ms, (std::vector<double>{1.1}));

  // An honest call's calls are about as busy as one another: the events stand.
  store::TimingRecord steady{0, "ok", "", 2, {1.0, 1.0}, {1.05, 1.1, 1.1}, false,
                             {kernel("triton", 2.97)}, 3, 0.99, {1.0, 0.99, 0.98},
                             {1.1, 1.1, 1.1}};
  steady.inventory_busy_ms = {1.0, 0.99, 0.98};
  ASSERT_EQ(find_inventory_violation(steady), std::nullopt);
  EXPECT_EQ(apply_stream_check(steady), TimedBy::events);

  // Within the margin (brackets at 0.8 of the busy time, less 5 us): the brackets stand.
  store::TimingRecord close{0, "ok", "", 2, {0.1, 0.1}, {0.8, 0.81}, false,
                            {kernel("triton", 2.0)}, 2, 1.0, {1.0, 1.0}, {1.1, 1.2}};
  EXPECT_EQ(apply_stream_check(close), TimedBy::brackets);
  EXPECT_EQ(close.samples_ms, (std::vector<double>{0.8, 0.81}));

  // No inventory (no CUPTI): nothing to compare with, the events stand.
  store::TimingRecord blind{0, "ok", "", 2, {0.1, 0.1}, {0.15, 0.16}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(apply_stream_check(blind), TimedBy::events);
}

TEST(FindInventoryViolation, RefusesPerCallBusyTimesThatContradictTheInventory) {
  store::TimingRecord t{0, "ok", "", 2, {1.0, 1.0}, {1.1, 1.1, 1.1}, false,
                        {kernel("triton", 2.0)}, 2, 0.9, {1.0, 1.0}, {1.1, 1.2}};
  t.inventory_busy_ms = {1.0, 0.8};
  EXPECT_EQ(find_inventory_violation(t), std::nullopt);
  auto with = [&](std::vector<double> busy) {
    store::TimingRecord u = t;
    u.inventory_busy_ms = std::move(busy);
    return find_inventory_violation(u);
  };
  EXPECT_NE(with({1.8}), std::nullopt);              // one busy time for two calls
  EXPECT_NE(with({1.2, 0.6}), std::nullopt);         // busier than its span
  EXPECT_NE(with({1.0, 1.0}), std::nullopt);         // 2.0 in all, the inventory says 1.8
  EXPECT_NE(with({-0.1, 1.9}), std::nullopt);        // negative
  EXPECT_EQ(fresh_call_busy_ms(t), 1.0);
  t.inventory_busy_ms.clear();                       // not reported: the mean
  EXPECT_EQ(find_inventory_violation(t), std::nullopt);
  EXPECT_DOUBLE_EQ(fresh_call_busy_ms(t), 0.9);
}

TEST(FindInventoryViolation, RefusesInventoriesThatContradictTheirTimings) {
  auto with = [](int calls, double busy, double summed, std::vector<double> spans,
                 std::vector<double> walls) {
    return store::TimingRecord{0,     "ok", "", 2, {1.0, 1.0}, {1.1, 1.1, 1.1}, false,
                               {kernel("triton", summed)}, calls, busy, std::move(spans),
                               std::move(walls)};
  };
  EXPECT_EQ(find_inventory_violation(with(2, 1.0, 2.0, {1.0, 1.0}, {1.1, 1.2})), std::nullopt);
  EXPECT_NE(find_inventory_violation(with(3, 1.0, 2.0, {1.0, 1.0}, {1.1, 1.2})), std::nullopt);  // calls != spans
  EXPECT_NE(find_inventory_violation(with(2, 1.0, 2.0, {1.0, 1.0}, {1.1})), std::nullopt);  // walls != calls
  EXPECT_NE(find_inventory_violation(with(0, 0.0, 0.0, {}, {})), std::nullopt);  // no calls
  EXPECT_NE(find_inventory_violation(with(2, 1.5, 2.0, {1.0, 1.0}, {2.0, 2.0})), std::nullopt);  // busy > summed
  EXPECT_NE(find_inventory_violation(with(2, -1.0, 2.0, {1.0, 1.0}, {1.1, 1.2})), std::nullopt);
  EXPECT_NE(find_inventory_violation(with(2, 1.0, 2.0, {1.0, 5.0}, {1.1, 1.2})), std::nullopt);  // span > wall
  EXPECT_NE(find_inventory_violation(with(2, 1.0, 2.0, {0.5, 0.5}, {0.5, 0.5})), std::nullopt);  // busy > walls
  EXPECT_NE(find_inventory_violation(with(2, 1.0, 2.0, {1.0, 1.0}, {1.1, -1.0})), std::nullopt);
  store::TimingRecord plain{0, "ok", "", 2, {1.0}, {}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(find_inventory_violation(plain), std::nullopt);
}

// A candidate that turns kbx's L2 flush off (or shrinks its buffer) times with its data still in
// L2; the flushes the harness tagged in the kernel inventory tell: one per inventory call, each at
// least as long as writing the device's L2 at 20 TB/s (2.6 us for an H100's 50 MiB).
TEST(FindFlushViolation, WantsAFullFlushBeforeEveryInventoryCall) {
  const double l2 = 50.0 * 1024 * 1024;
  auto with = [](std::optional<std::vector<double>> flushes) {
    store::TimingRecord t{0,  "ok", "", 2, {1.0, 1.0}, {1.1, 1.1, 1.1}, false, {kernel("triton", 2.0)},
                          2, 1.0, {1.0, 1.0}, {1.1, 1.2}};
    t.inventory_flush_ms = std::move(flushes);
    return t;
  };
  EXPECT_EQ(find_flush_violation(with(std::vector<double>{0.017, 0.016}), l2), std::nullopt);
  EXPECT_EQ(find_flush_violation(with(std::vector<double>{0.0027, 0.0027}), l2), std::nullopt);
  // Flush kernels beyond the calls are no harm; the full ones must still cover every call.
  EXPECT_EQ(find_flush_violation(with(std::vector<double>{0.0001, 0.017, 0.016}), l2),
            std::nullopt);
  auto none = find_flush_violation(with(std::vector<double>{}), l2);  // the flush turned off
  ASSERT_NE(none, std::nullopt);
  EXPECT_NE(none->find("0 flush kernel(s) ran"), std::string::npos) << *none;
  EXPECT_NE(find_flush_violation(with(std::nullopt), l2), std::nullopt);  // not reported at all
  auto shrunk = find_flush_violation(with(std::vector<double>{0.0015, 0.0014}), l2);  // 1 KB buffer
  ASSERT_NE(shrunk, std::nullopt);
  EXPECT_NE(shrunk->find("the shortest 0.0014 ms"), std::string::npos) << *shrunk;
  EXPECT_NE(find_flush_violation(with(std::vector<double>{0.017}), l2), std::nullopt);  // one of two
  EXPECT_NE(find_flush_violation(with(std::vector<double>{0.017, std::nan("")}), l2), std::nullopt);
  // Nothing to check: no flush (0 bytes: the CPU, --no-flush-l2, an L2 of unknown size), or no
  // inventory (no CUPTI).
  EXPECT_EQ(find_flush_violation(with(std::vector<double>{}), 0.0), std::nullopt);
  store::TimingRecord plain{0, "ok", "", 2, {1.0}, {}, false, {}, 0, {}, {}, {}};
  EXPECT_EQ(find_flush_violation(plain, l2), std::nullopt);
}

TEST(DecodeKernels, AcceptsTheWorkersShapeAndRefusesForgeries) {
  Json good = Json::array({{{"name", "softmax_kernel"}, {"origin", "triton"}, {"launches", 3},
                            {"gpu_ms", 0.5}},
                           {{"name", "add"}, {"origin", "torch"}, {"launches", 1}}});
  auto ok = decode_kernels(good, "cases");
  ASSERT_TRUE(ok) << ok.error().what();
  EXPECT_EQ(ok.value().size(), 2U);
  EXPECT_EQ(ok.value()[0].stage, "cases");
  EXPECT_EQ(ok.value()[1].gpu_ms, std::nullopt);
  for (const Json& bad :
       {Json::object(),
        Json::array({{{"name", "k"}, {"origin", "mine"}, {"launches", 1}}}),
        Json::array({{{"name", "k"}, {"origin", "triton"}, {"launches", -1}}}),
        Json::array({{{"name", "k"}, {"origin", "triton"}, {"launches", 1}, {"gpu_ms", -2.0}}}),
        Json::array({{{"name", std::string(300, 'k')}, {"origin", "triton"}, {"launches", 1}}}),
        Json::array({{{"name", 7}, {"origin", "triton"}, {"launches", 1}}})}) {
    EXPECT_FALSE(decode_kernels(bad, "cases")) << bad.dump();
  }
  Json many = Json::array();
  for (std::size_t i = 0; i <= max_inventory_names; ++i) {
    many.push_back({{"name", "k"}, {"origin", "other"}, {"launches", 1}});
  }
  EXPECT_FALSE(decode_kernels(many, "cases"));
}

}  // namespace
}  // namespace kbx::run
