// parse_evaluate_request: every refusal names the field and says what to send.
#include "kbx/serve/request.h"

#include <gtest/gtest.h>

namespace kbx::serve {
namespace {

RequestProblem problem_of(const std::string& body, const RequestLimits& limits = {}) {
  auto r = parse_evaluate_request(body, limits);
  EXPECT_TRUE(std::holds_alternative<RequestProblem>(r)) << body;
  return std::holds_alternative<RequestProblem>(r) ? std::get<RequestProblem>(r) : RequestProblem{};
}

TEST(EvaluateRequest, ReadsTaskCodeAndTheOptionalFields) {
  auto r = parse_evaluate_request(
      R"({"task": "Math/softmax.py", "code": "import triton", "perf": false, "label": "step 3",
          "metadata": {"run": 7}})",
      {});
  ASSERT_TRUE(std::holds_alternative<EvaluateRequest>(r));
  const auto& req = std::get<EvaluateRequest>(r);
  EXPECT_EQ(req.task, "Math/softmax.py");
  EXPECT_EQ(req.code, "import triton");
  EXPECT_EQ(req.perf, std::optional<bool>(false));
  EXPECT_EQ(req.label, "step 3");
  EXPECT_EQ(req.metadata["run"], 7);
}

TEST(EvaluateRequest, ReadsAStageTimeoutAndRefusesOneOutOfRange) {
  auto r = parse_evaluate_request(R"({"task": "a", "code": "b", "timeout_s": 5})", {});
  ASSERT_TRUE(std::holds_alternative<EvaluateRequest>(r));
  EXPECT_EQ(std::get<EvaluateRequest>(r).timeout_s, std::optional<int>(5));
  for (const char* bad : {"0", "3601", "1.5", "\"5\""}) {
    auto p = problem_of(std::string(R"({"task": "a", "code": "b", "timeout_s": )") + bad + "}");
    EXPECT_NE(p.message.find("'timeout_s' must be a whole number"), std::string::npos) << bad;
  }
}

TEST(EvaluateRequest, LeavesPerfUnsetWhenAbsent) {
  auto r = parse_evaluate_request(R"({"task": "a", "code": "b"})", {});
  ASSERT_TRUE(std::holds_alternative<EvaluateRequest>(r));
  EXPECT_FALSE(std::get<EvaluateRequest>(r).perf.has_value());
}

TEST(EvaluateRequest, RefusesABodyThatIsNotJson) {
  auto p = problem_of("{task: 1");
  EXPECT_EQ(p.status, 400);
  EXPECT_NE(p.message.find("not valid JSON"), std::string::npos);
}

TEST(EvaluateRequest, RefusesJsonThatIsNotAnObject) {
  EXPECT_NE(problem_of("[1]").message.find("JSON object"), std::string::npos);
}

TEST(EvaluateRequest, NamesTheMissingField) {
  EXPECT_NE(problem_of(R"({"code": "x"})").message.find("missing field 'task'"), std::string::npos);
  EXPECT_NE(problem_of(R"({"task": "x"})").message.find("missing field 'code'"), std::string::npos);
}

TEST(EvaluateRequest, NamesAFieldOfTheWrongType) {
  EXPECT_NE(problem_of(R"({"task": 1, "code": "x"})")
                .message.find("'task' must be a string (got a number)"),
            std::string::npos);
  EXPECT_NE(problem_of(R"({"task": "t", "code": "x", "perf": "yes"})").message.find("'perf'"),
            std::string::npos);
  EXPECT_NE(problem_of(R"({"task": "t", "code": "x", "metadata": []})").message.find("'metadata'"),
            std::string::npos);
}

TEST(EvaluateRequest, RefusesUnknownFieldsSoATypoCannotPassSilently) {
  EXPECT_NE(problem_of(R"({"task": "t", "code": "x", "pref": true})")
                .message.find("unknown field 'pref'"),
            std::string::npos);
}

TEST(EvaluateRequest, RefusesEmptyTaskAndBlankCode) {
  EXPECT_NE(problem_of(R"({"task": "", "code": "x"})").message.find("'task' is empty"),
            std::string::npos);
  EXPECT_NE(problem_of(R"({"task": "t", "code": " \n"})").message.find("'code' is empty"),
            std::string::npos);
}

TEST(EvaluateRequest, RefusesCodeOverTheLimitWith413) {
  RequestLimits limits;
  limits.code_bytes_max = 4;
  auto p = problem_of(R"({"task": "t", "code": "12345"})", limits);
  EXPECT_EQ(p.status, 413);
  EXPECT_NE(p.message.find("'code' holds 5 bytes"), std::string::npos);
}

TEST(EvaluateRequest, RefusesABodyOverTheLimitWith413BeforeParsingIt) {
  RequestLimits limits;
  limits.body_bytes_max = 10;
  EXPECT_EQ(problem_of(std::string(11, '{'), limits).status, 413);
}

}  // namespace
}  // namespace kbx::serve
