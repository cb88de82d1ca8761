// suite check's pure parts: seed expansion, which controls apply, and expected verdicts.
#include "kbx/run/suite_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace kbx::run {
namespace {

suite::Task task_with(std::vector<std::string> dtypes) {
  suite::Task t;
  t.key = "Math/abs.py";
  t.entry = "abs";
  t.dtypes = std::move(dtypes);
  t.dir = "/nonexistent/Math/abs";
  t.cases = {{"a", Json::array(), Json::object(), {}}, {"b", Json::array(), Json::object(), {"ValueError"}}};
  return t;
}

std::vector<std::string> names(const std::vector<Control>& controls) {
  std::vector<std::string> out;
  for (const auto& c : controls) {
    out.push_back(c.name);
  }
  return out;
}

TEST(WithSeeds, SeedZeroKeepsNamesAndLaterSeedsRenameEveryCase) {
  auto t = with_seeds(task_with({"float32"}), 3);
  ASSERT_EQ(t.cases.size(), 6U);
  EXPECT_EQ(t.cases[0].name, "a");
  EXPECT_EQ(t.cases[1].name, "b");
  EXPECT_EQ(t.cases[2].name, "a@seed1");
  EXPECT_EQ(t.cases[5].name, "b@seed2");
  EXPECT_EQ(t.cases[5].raises, std::vector<std::string>{"ValueError"});
  auto a = resolve_cases(t, 0);
  EXPECT_NE(a[0].seed, a[2].seed) << "each draw gets its own inputs";
  EXPECT_EQ(with_seeds(task_with({}), 0).cases.size(), 2U);
}

TEST(WithSeeds, EachDrawIsOneRequest) {
  EXPECT_EQ(suite::calls_per_request(task_with({"float32"})), std::numeric_limits<std::size_t>::max())
      << "a task as loaded sends all its cases at once";
  auto t = with_seeds(task_with({"float32"}), 3);
  EXPECT_EQ(t.draws, 3);
  EXPECT_EQ(suite::calls_per_request(t), 2U);
  EXPECT_EQ(with_seeds(task_with({"float32"}), 1).draws, 1);
  using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(suite::request_ranges(t, 7), (Ranges{{0, 2}, {2, 4}, {4, 6}, {6, 7}}))
      << "three draws of two cases, then the recheck alone";
  EXPECT_EQ(suite::request_ranges(task_with({"float32"}), 3), (Ranges{{0, 3}}));
  EXPECT_TRUE(suite::request_ranges(t, 0).empty());
}

TEST(TaskControls, LowPrecisionOnlyForFloat32DataAndUpstreamOnlyWhenDefined) {
  EXPECT_EQ(names(task_controls(task_with({"float32"}), {})),
            (std::vector<std::string>{"eager", "zeros", "first_input", "noise", "float16", "bfloat16"}));
  EXPECT_EQ(names(task_controls(task_with({"int64"}), {})),
            (std::vector<std::string>{"eager", "zeros", "first_input", "noise"}));
  EXPECT_EQ(names(task_controls(task_with({"float32"}), {"zeros", "eager"})),
            (std::vector<std::string>{"eager", "zeros"}));
}

TEST(TaskControls, EachDefinesTheEntryAndCallsTheReferenceByPath) {
  for (const auto& c : task_controls(task_with({"float32"}), {})) {
    EXPECT_NE(c.code.find("def abs(*args, **kwargs):"), std::string::npos) << c.name;
    EXPECT_NE(c.code.find("\"/nonexistent/Math/abs/reference.py\""), std::string::npos) << c.name;
    EXPECT_EQ(c.must_pass, c.name == "eager");
  }
}

TEST(ControlResult, EagerMustPassAndTheOthersMustBeJudgedWrong) {
  EXPECT_TRUE((ControlResult{"k", "eager", true, "ok", "", ""}).as_expected());
  EXPECT_FALSE((ControlResult{"k", "eager", true, "incorrect", "", ""}).as_expected());
  EXPECT_TRUE((ControlResult{"k", "zeros", false, "incorrect", "", ""}).as_expected());
  EXPECT_FALSE((ControlResult{"k", "zeros", false, "ok", "", ""}).as_expected());
  EXPECT_FALSE((ControlResult{"k", "zeros", false, "skipped", "", ""}).as_expected());
}

}  // namespace
}  // namespace kbx::run
