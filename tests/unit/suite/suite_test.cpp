// Tests of Suite look-ups: by key, by name, closest keys and the unknown-key message.
#include "kbx/suite/suite.h"

#include <gtest/gtest.h>

#include <string>

namespace kbx::suite {
namespace {

using Keys = std::vector<std::string>;

Task task(const std::string& key, const std::string& entry) {
  Task t;
  t.key = key;
  t.entry = entry;
  return t;
}

// Tasks sorted by key, as load_suite leaves them.
Suite fixture_suite() {
  Suite s;
  s.root = "/suites/kbx";
  s.tasks = {task("Activation/relu.py", "relu"),   task("Loss/mse_loss.py", "mse_loss"),
             task("Math/softmax.py", "softmax"),   task("Math/softplus.py", "softplus"),
             task("Optimizer/SGD.py", "sgd_step"), task("Reduce/softmax.py", "reduce_softmax")};
  return s;
}

TEST(Suite, FindReturnsTheTaskWithExactlyThatKey) {
  Suite s = fixture_suite();
  ASSERT_NE(s.find("Math/softmax.py"), nullptr);
  EXPECT_EQ(s.find("Math/softmax.py")->entry, "softmax");
  EXPECT_EQ(s.find("Optimizer/SGD.py")->entry, "sgd_step");
  EXPECT_EQ(s.find("Math/softmax"), nullptr);
  EXPECT_EQ(s.find("math/softmax.py"), nullptr);
  EXPECT_EQ(s.find("Zzz/none.py"), nullptr);
  EXPECT_EQ(s.find(""), nullptr);
}

TEST(Suite, FindByNameMatchesAUniqueEntryOrStem) {
  Suite s = fixture_suite();
  ASSERT_NE(s.find_by_name("relu"), nullptr);
  EXPECT_EQ(s.find_by_name("relu")->key, "Activation/relu.py");
  ASSERT_NE(s.find_by_name("SGD"), nullptr);
  EXPECT_EQ(s.find_by_name("SGD")->key, "Optimizer/SGD.py");
  ASSERT_NE(s.find_by_name("sgd_step"), nullptr);
  EXPECT_EQ(s.find_by_name("sgd_step")->key, "Optimizer/SGD.py");
}

TEST(Suite, FindByNameIsNullWhenAmbiguousOrUnknown) {
  Suite s = fixture_suite();
  EXPECT_EQ(s.find_by_name("softmax"), nullptr);  // Math/softmax.py and Reduce/softmax.py
  EXPECT_EQ(s.find_by_name("gelu"), nullptr);
}

TEST(Suite, KeysAreInTaskOrder) {
  EXPECT_EQ(fixture_suite().keys(),
            (Keys{"Activation/relu.py", "Loss/mse_loss.py", "Math/softmax.py", "Math/softplus.py",
                  "Optimizer/SGD.py", "Reduce/softmax.py"}));
}

TEST(Suite, ClosestKeysRankByTheSmallerOfKeyAndStemDistanceKeepingSuiteOrderForTies) {
  // Both softmax tasks are one edit away (by key or by stem); softplus is further.
  Keys near = fixture_suite().closest_keys("Math/sofmax.py", 3);
  EXPECT_EQ(near, (Keys{"Math/softmax.py", "Reduce/softmax.py", "Math/softplus.py"}));
}

TEST(Suite, ClosestKeysAlsoCompareStemsSoAWrongCategoryStillFindsTheTask) {
  Keys near = fixture_suite().closest_keys("Activation/mse_loss.py", 1);
  EXPECT_EQ(near, (Keys{"Loss/mse_loss.py"}));
  near = fixture_suite().closest_keys("SGD", 1);
  EXPECT_EQ(near, (Keys{"Optimizer/SGD.py"}));
}

TEST(Suite, ClosestKeysReturnAtMostLimit) {
  EXPECT_EQ(fixture_suite().closest_keys("x", 3).size(), 3U);
  EXPECT_EQ(fixture_suite().closest_keys("x", 100).size(), 6U);
  EXPECT_TRUE(Suite{}.closest_keys("x", 3).empty());
}

TEST(Suite, UnknownKeyMessageNamesTheKeyAndTheClosestKeys) {
  std::string message = fixture_suite().unknown_key_message("Math/sofmax.py");
  EXPECT_EQ(message.rfind("unknown task 'Math/sofmax.py'; closest: Math/softmax.py, ", 0), 0U)
      << message;
  EXPECT_NE(message.find("kbx suite list"), std::string::npos) << message;
}

TEST(Suite, UnknownKeyMessageOfAnEmptySuiteNamesItsRoot) {
  Suite s;
  s.root = "/suites/empty";
  EXPECT_EQ(s.unknown_key_message("Math/softmax.py"),
            "unknown task 'Math/softmax.py' (the suite at /suites/empty has no tasks)");
}

}  // namespace
}  // namespace kbx::suite
