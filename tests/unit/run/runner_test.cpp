// Tests of the runner's pure helpers: --tasks selection and submission ids.
#include "kbx/run/runner.h"

#include <gtest/gtest.h>

#include <string>

namespace kbx::run {
namespace {

submit::Submission submission(const std::string& key, int line, const std::string& code) {
  submit::Submission s;
  s.task_key = key;
  s.slot = "line " + std::to_string(line);
  s.ordinal = line;
  s.code = code;
  s.origin = "preds.jsonl:1";
  return s;
}

TEST(TaskSelected, EmptyOrBlankListSelectsEveryTask) {
  EXPECT_TRUE(task_selected("", "Math/softmax.py"));
  EXPECT_TRUE(task_selected("  ", "Math/softmax.py"));
}

TEST(TaskSelected, MatchesGlobsWithOrWithoutTheDotPy) {
  EXPECT_TRUE(task_selected("Math/*", "Math/softmax.py"));
  EXPECT_TRUE(task_selected("Math/softmax", "Math/softmax.py"));
  EXPECT_TRUE(task_selected("Math/softmax.py", "Math/softmax.py"));
  EXPECT_TRUE(task_selected("*soft*", "Math/softmax.py"));
  EXPECT_FALSE(task_selected("Math/soft", "Math/softmax.py"));
  EXPECT_FALSE(task_selected("Loss/*", "Math/softmax.py"));
  EXPECT_FALSE(task_selected("softmax", "Math/softmax.py"));
}

TEST(TaskSelected, AcceptsACommaSeparatedListWithSpacesAndEmptyItems) {
  EXPECT_TRUE(task_selected(" Loss/* , Math/softmax ", "Math/softmax.py"));
  EXPECT_TRUE(task_selected("Loss/*,,Activation/relu", "Activation/relu.py"));
  EXPECT_FALSE(task_selected("Loss/*, ,Activation/relu", "Math/softmax.py"));
  EXPECT_FALSE(task_selected(",", "Math/softmax.py"));
}

TEST(SubmissionId, IsThirtyTwoHexDigitsAndStable) {
  auto a = submission("Math/softmax.py", 3, "def softmax(x, dim): ...");
  std::string id = submission_id(a);
  EXPECT_EQ(id.size(), 32U);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_EQ(submission_id(a), id);
  EXPECT_EQ(submission_id(submission("Math/softmax.py", 3, "def softmax(x, dim): ...")), id);
}

TEST(SubmissionId, IgnoresHowTheSourceWasNamedAndItsReportOrder) {
  auto a = submission("Math/softmax.py", 0, "x");
  auto b = a;
  b.origin = "/abs/path/preds.jsonl:1";
  b.ordinal = 7;
  EXPECT_EQ(submission_id(a), submission_id(b));
}

TEST(SubmissionId, DiffersBySlotByCodeAndByTask) {
  std::string id = submission_id(submission("Math/softmax.py", 0, "x"));
  EXPECT_NE(submission_id(submission("Math/softmax.py", 1, "x")), id);
  EXPECT_NE(submission_id(submission("Math/softmax.py", 0, "x ")), id);
  EXPECT_NE(submission_id(submission("Math/relu.py", 0, "x")), id);
}

TEST(SubmissionId, FieldsDoNotRunIntoEachOther) {
  // "key\n1\n2x" must differ from "key\n12\nx".
  EXPECT_NE(submission_id(submission("Math/softmax.py", 1, "2x")),
            submission_id(submission("Math/softmax.py", 12, "x")));
}

}  // namespace
}  // namespace kbx::run
