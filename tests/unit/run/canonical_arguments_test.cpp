// judge_case_results on tasks with a canonical form: the return value goes to the canonical
// check, the arguments sent back are judged directly (inputs unchanged, `out` holding what came
// back, written arguments as the reference's).
#include <gtest/gtest.h>

#include "../compare/compare_builders.h"
#include "kbx/compare/tolerance.h"
#include "kbx/run/judge.h"

namespace kbx::run {
namespace {

using compare::testing::f32;
using compare::testing::tensor_leaf;

struct Case {
  std::vector<OutputLeaf> expected;
  std::vector<OutputLeaf> got;
};

CaseJudgement judge(const Case& c, JudgeRules rules) {
  std::vector<suite::ResolvedCall> calls(1);
  calls[0].name = "case0";
  std::vector<CaseResult> results(1);
  results[0].status = CaseStatus::ok;
  results[0].outputs = c.got;
  CaseOutputs expected(1);
  expected[0].outputs = c.expected;
  return judge_case_results(calls, results, expected, compare::Contract::kernelbenchx_default(),
                            rules);
}

JudgeRules canonical_rules(std::vector<int> mutated_args = {},
                           std::vector<std::string> mutated_kwargs = {}) {
  JudgeRules rules;
  rules.canonical = true;
  rules.mutated_args = std::move(mutated_args);
  rules.mutated_kwargs = std::move(mutated_kwargs);
  return rules;
}

TEST(CanonicalArguments, AReturnValueOtherThanTheReferencesGoesToTheCanonicalCheck) {
  // An SVD's factors differ from the reference's by signs: only the canonical form can judge them.
  Case c{{tensor_leaf("out", f32({1, 2})), tensor_leaf("arg0", f32({3, 4}))},
         {tensor_leaf("out", f32({-1, -2})), tensor_leaf("arg0", f32({3, 4}))}};
  auto j = judge(c, canonical_rules());
  ASSERT_EQ(j.cases.size(), 1u);
  EXPECT_EQ(j.cases[0].status, "ok");
  EXPECT_EQ(j.pending_canonical, std::vector<std::size_t>{0});
}

TEST(CanonicalArguments, AnInputTheCallChangedIsInputMutated) {
  Case c{{tensor_leaf("out", f32({1, 2})), tensor_leaf("arg0", f32({3, 4}))},
         {tensor_leaf("out", f32({1, 2})), tensor_leaf("arg0", f32({0, 0}))}};
  auto j = judge(c, canonical_rules());
  EXPECT_EQ(j.cases[0].status, "mismatch");
  EXPECT_EQ(j.cases[0].reason, "input_mutated");
  EXPECT_EQ(j.cases[0].path, "arg0");
  EXPECT_TRUE(j.pending_canonical.empty());
}

TEST(CanonicalArguments, OutMustHoldExactlyTheReturnedResultNotTheReferences) {
  // A random result (dropout): out differs from the reference's out, and that is fine, as long as
  // it holds what the call returned.
  Case ok{{tensor_leaf("out", f32({1, 0})), tensor_leaf("kw['out']", f32({1, 0}))},
          {tensor_leaf("out", f32({0, 2})), tensor_leaf("kw['out']", f32({0, 2}))}};
  auto j = judge(ok, canonical_rules({}, {"out"}));
  EXPECT_EQ(j.cases[0].status, "ok") << j.cases[0].detail;

  // Ignored out (left as the zeros it came in as), or one rounding apart from the result.
  for (const auto& written : {f32({0, 0}), f32({0, 2.0000002f})}) {
    Case bad{{tensor_leaf("out", f32({1, 0})), tensor_leaf("kw['out']", f32({1, 0}))},
             {tensor_leaf("out", f32({0, 2})), tensor_leaf("kw['out']", written)}};
    auto k = judge(bad, canonical_rules({}, {"out"}));
    EXPECT_EQ(k.cases[0].status, "mismatch");
    EXPECT_EQ(k.cases[0].path, "kw['out']");
    EXPECT_NE(k.cases[0].detail.find("does not hold the returned result"), std::string::npos)
        << k.cases[0].detail;
    EXPECT_NE(k.cases[0].reason, "input_mutated");
  }
}

TEST(CanonicalArguments, OutOfATupleResultIsMatchedLeafByLeaf) {
  Case c{{tensor_leaf("out[0]", f32({1})), tensor_leaf("out[1]", f32({2})),
          tensor_leaf("kw['out'][0]", f32({1})), tensor_leaf("kw['out'][1]", f32({2}))},
         {tensor_leaf("out[0]", f32({5})), tensor_leaf("out[1]", f32({6})),
          tensor_leaf("kw['out'][0]", f32({5})), tensor_leaf("kw['out'][1]", f32({7}))}};
  auto j = judge(c, canonical_rules({}, {"out"}));
  EXPECT_EQ(j.cases[0].status, "mismatch");
  EXPECT_EQ(j.cases[0].path, "kw['out'][1]");
}

TEST(CanonicalArguments, AWrittenArgumentIsComparedWithTheReferences) {
  // Adam's parameters: written (mutated_args [0]) and deterministic.
  Case ok{{tensor_leaf("out", f32({9})), tensor_leaf("arg0[0]", f32({0.5f}))},
          {tensor_leaf("out", f32({9})), tensor_leaf("arg0[0]", f32({0.5f}))}};
  EXPECT_EQ(judge(ok, canonical_rules({0})).cases[0].status, "ok");
  Case bad{{tensor_leaf("out", f32({9})), tensor_leaf("arg0[0]", f32({0.5f}))},
           {tensor_leaf("out", f32({9})), tensor_leaf("arg0[0]", f32({0.4f}))}};
  auto j = judge(bad, canonical_rules({0}));
  EXPECT_EQ(j.cases[0].status, "mismatch");
  EXPECT_NE(j.cases[0].reason, "input_mutated");  // the task writes it: a wrong value, not a mutation
}

TEST(CanonicalArguments, KernelbenchxRulesCompareNoArgument) {
  Case c{{tensor_leaf("out", f32({1})), tensor_leaf("arg0", f32({3}))},
         {tensor_leaf("out", f32({1})), tensor_leaf("arg0", f32({0}))}};
  auto rules = canonical_rules();
  rules.rules = "kernelbenchx";
  auto j = judge(c, rules);
  EXPECT_EQ(j.cases[0].status, "ok");
  EXPECT_EQ(j.pending_canonical.size(), 1u);
}

}  // namespace
}  // namespace kbx::run
