// The contract fields of task.json: raises, mutated_kwargs, canonical, errata.
#include <gtest/gtest.h>

#include "kbx/suite/suite.h"
#include "unit/suite/suite_fixture.h"

namespace kbx::suite {
namespace {

using testing::valid_task;
using testing::write_task;

TEST(ContractFields, AreReadIntoTheTaskAndItsResolvedCalls) {
  kbx::testing::ScopedTempDir root;
  Json t = valid_task("LinearAlgebra/solve.py", "solve");
  t["cases"][0]["raises"] = {"LinAlgError", "RuntimeError"};
  t["mutated_kwargs"] = {"out"};
  t["canonical"] = "canonical_solve";
  t["errata"] = {"kbx judges the exception type, not its message"};
  auto task = load_task(write_task(root, t), "LinearAlgebra/solve.py");
  ASSERT_TRUE(task.ok()) << task.error().what();
  EXPECT_EQ(task->cases[0].raises, (std::vector<std::string>{"LinAlgError", "RuntimeError"}));
  EXPECT_EQ(task->mutated_kwargs, std::vector<std::string>{"out"});
  EXPECT_EQ(task->canonical, "canonical_solve");
  EXPECT_EQ(task->errata.size(), 1U);
  auto calls = resolve_cases(*task, 0);
  EXPECT_EQ(calls[0].raises, task->cases[0].raises);
}

TEST(ContractFields, RejectMalformedLists) {
  for (auto [field, value] : {std::pair{"mutated_kwargs", Json("out")},
                              std::pair{"errata", Json::array({1})},
                              std::pair{"mutated_kwargs", Json::array({""})}}) {
    kbx::testing::ScopedTempDir root;
    Json t = valid_task("Math/abs.py", "abs");
    t[field] = value;
    auto task = load_task(write_task(root, t), "Math/abs.py");
    ASSERT_FALSE(task.ok()) << field;
    EXPECT_NE(std::string(task.error().what()).find(field), std::string::npos);
  }
  kbx::testing::ScopedTempDir root;
  Json t = valid_task("Math/abs.py", "abs");
  t["cases"][0]["raises"] = Json::array();
  auto task = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_FALSE(task.ok());
  EXPECT_NE(std::string(task.error().what()).find("'raises'"), std::string::npos);
}

TEST(ContractFields, CompareRequiresGradIsABooleanDefaultingToFalse) {
  kbx::testing::ScopedTempDir root;
  Json t = valid_task("Math/abs.py", "abs");
  auto plain = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_TRUE(plain.ok()) << plain.error().what();
  EXPECT_FALSE(plain->compare_requires_grad);
  t["compare_requires_grad"] = true;
  auto asks = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_TRUE(asks.ok()) << asks.error().what();
  EXPECT_TRUE(asks->compare_requires_grad);
  t["compare_requires_grad"] = "yes";
  auto bad = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.error().what()).find("'compare_requires_grad' must be true or false"),
            std::string::npos);
}

TEST(ContractFields, ExactReferenceMustBeABoolean) {
  kbx::testing::ScopedTempDir root;
  Json t = valid_task("Math/abs.py", "abs");
  t["exact_reference"] = "yes";
  auto task = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_FALSE(task.ok());
  EXPECT_NE(std::string(task.error().what()).find("'exact_reference' must be true or false"),
            std::string::npos);
}

TEST(ContractFields, ExactReferenceRefusesMutatedKeywordArguments) {
  kbx::testing::ScopedTempDir root;
  Json t = valid_task("Math/abs.py", "abs");
  t["exact_reference"] = true;
  t["mutated_kwargs"] = {"out"};
  auto task = load_task(write_task(root, t), "Math/abs.py");
  ASSERT_FALSE(task.ok());
  EXPECT_NE(std::string(task.error().what()).find("mutated arguments"), std::string::npos);
}

}  // namespace
}  // namespace kbx::suite
