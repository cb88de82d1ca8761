// Prompt templates and the values a task gives them; feedback from verdicts.
#include "kbx/gen/prompt.h"

#include <gtest/gtest.h>

#include "kbx/gen/feedback.h"
#include "support/test_support.h"

namespace kbx::gen {
namespace {

using kbx::testing::ScopedTempDir;

suite::Task relu_task() {
  suite::Task t;
  t.key = "Activation/relu.py";
  t.entry = "relu";
  t.category = "Activation";
  t.signature = "relu(input, inplace=False)";
  t.description = "Elementwise max(x, 0).";
  t.dtypes = {"float32"};
  suite::TestCase c;
  c.name = "small";
  c.args = Json::array({Json{{"tensor", Json{{"shape", {4, 8}}, {"dtype", "float32"}}}}});
  c.kwargs = Json{{"inplace", false}};
  t.cases.push_back(c);
  return t;
}

TEST(Render, FillsEveryPlaceholder) {
  EXPECT_EQ(render("a {{x}} b {{y}}{{x}}", {{"x", "1"}, {"y", "2"}}, "t"), "a 1 b 21");
}

TEST(Render, AnUnknownPlaceholderNamesTheTemplateAndTheName) {
  auto e = kbx::testing::error_of([] { (void)render("{{nope}}", {}, "v1/task.txt"); });
  EXPECT_CONTAINS(e.what(), "v1/task.txt");
  EXPECT_CONTAINS(e.what(), "{{nope}}");
}

TEST(Render, AValueIsNotRenderedAgain) {
  EXPECT_EQ(render("{{code}}", {{"code", "{{x}}"}}, "t"), "{{x}}");
}

TEST(ExampleCall, ShowsTheFirstCaseAsACall) {
  EXPECT_EQ(example_call(relu_task()), "relu(<float32 tensor [4, 8]>, inplace=false)");
}

TEST(Prompts, TheBundledTemplatesRenderForATask) {
  auto t = load_templates(std::filesystem::path(KBX_SOURCE_DIR) / "prompts" / "v1");
  EXPECT_EQ(t.version, "v1");
  auto values = task_values(relu_task());
  std::string task = render(t.task, values, "task.txt");
  EXPECT_CONTAINS(task, "Activation/relu.py");
  EXPECT_CONTAINS(task, "Elementwise max(x, 0).");
  EXPECT_CONTAINS(task, "relu(input, inplace=False)");
  EXPECT_CONTAINS(task, "relu(<float32 tensor [4, 8]>");
  values["previous_code"] = "def relu(x): pass";
  values["feedback"] = "test case 'small' does not match";
  std::string refine = render(t.refine, values, "refine.txt");
  EXPECT_CONTAINS(refine, "def relu(x): pass");
  EXPECT_CONTAINS(refine, "does not match");
  (void)render(t.optimize, values, "optimize.txt");
  (void)render(t.system, values, "system.txt");
}

TEST(Prompts, AMissingTemplateIsNamed) {
  ScopedTempDir dir;
  dir.write("system.txt", "s");
  auto e = kbx::testing::error_of([&] { (void)load_templates(dir.path()); });
  EXPECT_CONTAINS(e.what(), "task.txt");
}

TEST(Feedback, NamesTheFirstMismatchingCaseWithItsErrorFigures) {
  store::EvaluationRecord e;
  e.outcome = "incorrect";
  e.reason = "mismatch";
  store::CaseRecord ok;
  ok.name = "a";
  ok.status = "ok";
  store::CaseRecord bad;
  bad.name = "big";
  bad.status = "mismatch";
  bad.reason = "tolerance";
  bad.path = "out";
  bad.err_abs_max = 0.5;
  bad.err_rel_max = 2;
  bad.mismatch_count = 12;
  bad.first_mismatch_index = 3;
  e.cases = {ok, bad};
  auto f = feedback_for(e, nullptr);
  EXPECT_CONTAINS(f, "'big'");
  EXPECT_CONTAINS(f, "max abs error 0.5");
  EXPECT_CONTAINS(f, "12 elements");
  EXPECT_CONTAINS(f, "flat index 3");
}

TEST(Feedback, GivesACompileErrorsDetail) {
  store::EvaluationRecord e;
  e.outcome = "compile_error";
  e.reason = "syntax_error";
  e.detail = "line 3: invalid syntax";
  auto f = feedback_for(e, nullptr);
  EXPECT_CONTAINS(f, "compile error");
  EXPECT_CONTAINS(f, "line 3: invalid syntax");
}

TEST(Feedback, GivesPerWorkloadSpeedupsForACorrectTimedKernel) {
  store::EvaluationRecord e;
  e.outcome = "ok";
  report::SubmissionRow row;
  row.perf_ok = true;
  row.speedup = 1.5;
  report::WorkloadRow w;
  w.params = Json{{"N", 1024}};
  w.speedup = 1.5;
  row.workloads.push_back(w);
  auto f = feedback_for(e, &row);
  EXPECT_CONTAINS(f, "1.5x");
  EXPECT_CONTAINS(f, "{\"N\":1024}");
}

TEST(Feedback, IsCutToItsLimit) {
  store::EvaluationRecord e;
  e.outcome = "runtime_error";
  e.detail = std::string(10000, 'x');
  EXPECT_LE(feedback_for(e, nullptr).size(), max_feedback_bytes + 10);
}

}  // namespace
}  // namespace kbx::gen
