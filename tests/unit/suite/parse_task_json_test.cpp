// Tests of parse_task_json on hostile task.json text: what fuzz/task_fuzz.cpp and the hostile-input
// work found, each an error naming the file and field, never a crash or undefined behaviour.
#include <gtest/gtest.h>

#include <string>

#include "kbx/suite/suite.h"
#include "support/test_support.h"
#include "unit/suite/suite_fixture.h"

namespace kbx::suite {
namespace {

using testing::valid_task;

const std::string key = "Math/softmax.py";

std::string parse_error(const std::string& text) {
  auto task = parse_task_json(text, "suites/x/Math/softmax", key);
  if (task.ok()) {
    ADD_FAILURE() << "expected an error for " << text.substr(0, 200);
    return {};
  }
  EXPECT_EQ(task.error().kind(), ErrorKind::suite);
  EXPECT_CONTAINS(task.error().what(), "suites/x/Math/softmax/task.json");
  return task.error().what();
}

TEST(ParseTaskJson, ParsesAValidTaskWithoutReadingFiles) {
  auto task = parse_task_json(valid_task(key, "softmax").dump(), "nowhere/Math/softmax", key);
  ASSERT_TRUE(task.ok()) << task.error().what();
  EXPECT_EQ(task->entry, "softmax");
  EXPECT_TRUE(task->version.empty());
}

// get<int>() cast a float such as 1e300 unchecked: undefined behaviour (UBSan in the fuzz build).
TEST(ParseTaskJson, FloatsInIntegerFieldsAreErrorsNamingTheField) {
  for (const char* field : {"format", "difficulty"}) {
    for (const Json& bad : {Json(1e300), Json(1.5), Json(std::int64_t{1} << 40)}) {
      Json task = valid_task(key, "softmax");
      task[field] = bad;
      EXPECT_CONTAINS(parse_error(task.dump()), fmt::format("'{}' must be an integer", field));
    }
  }
  Json task = valid_task(key, "softmax");
  task["mutated_args"] = {0, 1e300};
  EXPECT_CONTAINS(parse_error(task.dump()), "'mutated_args' must be an integer (got 1e+300)");
  task["mutated_args"] = 3;
  EXPECT_CONTAINS(parse_error(task.dump()), "'mutated_args' must be a list of integers");
}

TEST(ParseTaskJson, KbxOnlyMarksACaseAndMustBeABoolean) {
  Json task = valid_task(key, "softmax");
  Json extra = task["cases"][0];
  extra["name"] = "noncontig";
  extra["kbx_only"] = true;
  task["cases"].push_back(extra);
  auto parsed = parse_task_json(task.dump(), "nowhere/Math/softmax", key);
  ASSERT_TRUE(parsed.ok()) << parsed.error().what();
  EXPECT_FALSE(parsed->cases[0].kbx_only);
  EXPECT_TRUE(parsed->cases[1].kbx_only);
  task["cases"][1]["kbx_only"] = "yes";
  EXPECT_CONTAINS(parse_error(task.dump()), "case 'noncontig': 'kbx_only' must be true or false");
  task["cases"][1]["kbx_only"] = true;
  task["cases"][0]["kbx_only"] = true;
  EXPECT_CONTAINS(parse_error(task.dump()), "every case is 'kbx_only'");
}

TEST(ParseTaskJson, ThenNamesAPublicMethodAndThenCallsReachEveryResolvedCall) {
  Json task = valid_task(key, "softmax");
  task["then"] = "step";
  Json extra = task["cases"][0];
  extra["name"] = "three_steps";
  extra["then_calls"] = 3;
  task["cases"].push_back(extra);
  auto parsed = parse_task_json(task.dump(), "nowhere/Math/softmax", key);
  ASSERT_TRUE(parsed.ok()) << parsed.error().what();
  EXPECT_EQ(parsed->then, "step");
  auto calls = resolve_cases(*parsed, 0);
  ASSERT_GE(calls.size(), 2U);
  EXPECT_EQ(calls[0].then, "step");
  EXPECT_EQ(calls[0].then_calls, 1);
  EXPECT_EQ(calls[1].then_calls, 3);
  for (const char* bad : {"_step", "1step", "st ep", "os.system"}) {
    task["then"] = bad;
    EXPECT_CONTAINS(parse_error(task.dump()), "'then' must name a public method");
  }
  task["then"] = "step";
  for (const Json& bad : {Json(0), Json(101), Json(1.5), Json("2")}) {
    task["cases"][1]["then_calls"] = bad;
    EXPECT_CONTAINS(parse_error(task.dump()), "'then_calls' must be an integer from 1 to 100");
  }
  task["cases"][1]["then_calls"] = 2;
  task.erase("then");
  EXPECT_CONTAINS(parse_error(task.dump()), "'then_calls' needs the task's 'then' method");
}

TEST(ParseTaskJson, DeepNestingIsAnErrorNotAStackOverflow) {
  Json task = valid_task(key, "softmax");
  std::string text = task.dump();
  text.insert(1, R"("deep": )" + std::string(100'000, '[') + std::string(100'000, ']') + ",");
  EXPECT_CONTAINS(parse_error(text), "not valid JSON: arrays and objects nested deeper than 128");
}

TEST(ParseTaskJson, ANumberPastDoubleRangeIsAnError) {
  EXPECT_CONTAINS(parse_error(R"({"format": 1e400})"), "not valid JSON");
}

}  // namespace
}  // namespace kbx::suite
