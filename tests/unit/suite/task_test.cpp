// Tests of Task helpers, derive_seed and the resolution of cases and workloads into calls.
#include "kbx/suite/task.h"

#include <gtest/gtest.h>

#include <string>

#include "kbx/common/error.h"
#include "kbx/common/hash.h"

namespace kbx::suite {
namespace {

Task two_case_task() {
  Task t;
  t.key = "Math/softmax.py";
  t.entry = "softmax";
  t.cases = {{"rows_2x3", Json::array({1}), Json{{"dim", 1}}, {}},
             {"rows_4x5", Json::array({2}), Json{{"dim", 0}}, {}}};
  Workload w0;
  w0.index = 0;
  w0.args = Json::array({{{"tensor", {{"shape", {4, 8}}}}}});
  w0.kwargs = Json{{"dim", 1}};
  Workload w1 = w0;
  w1.index = 1;
  t.workloads = {w0, w1};
  return t;
}

TEST(Task, StemIsTheKeysFileNameWithoutPy) {
  Task t;
  t.key = "Optimizer/SGD.py";
  EXPECT_EQ(t.stem(), "SGD");
}

TEST(Task, EntryNamesAreEntryThenStemThenKernelFunction) {
  Task t;
  t.key = "Optimizer/SGD.py";
  t.entry = "sgd_step";
  EXPECT_EQ(t.entry_names(), (std::vector<std::string>{"sgd_step", "SGD", "kernel_function"}));
}

TEST(DeriveSeed, IsFnv1aOfKeyWhatAndBaseMaskedTo63Bits) {
  std::uint64_t expected = fnv1a64("Math/softmax.py|case|rows_2x3|42") & 0x7FFFFFFFFFFFFFFFULL;
  EXPECT_EQ(derive_seed("Math/softmax.py", "case|rows_2x3", 42), expected);
}

// Values computed by tools/check_task.py's seed_for(), which the worker's inputs depend on.
TEST(DeriveSeed, MatchesCheckTaskPy) {
  EXPECT_EQ(derive_seed("Math/softmax.py", "case|rows_2x3", 0), 3954666846550594070ULL);
  EXPECT_EQ(derive_seed("Math/softmax.py", "case|rows_2x3", 42), 7732166795186841968ULL);
  EXPECT_EQ(derive_seed("Math/softmax.py", "perf|1", 7), 8017323169767102532ULL);
}

TEST(DeriveSeed, NeverSetsTheTopBit) {
  for (int base = 0; base < 200; ++base) {
    EXPECT_EQ(derive_seed("Reduce/sum.py", "case|c", base) >> 63, 0U) << base;
  }
}

TEST(ResolveCases, GivesEachCaseItsIndexNameValuesAndDerivedSeed) {
  Task t = two_case_task();
  auto calls = resolve_cases(t, 42);
  ASSERT_EQ(calls.size(), 3U);
  EXPECT_EQ(calls[1].index, 1);
  EXPECT_EQ(calls[1].name, "rows_4x5");
  EXPECT_EQ(calls[1].seed, derive_seed("Math/softmax.py", "case|rows_4x5", 42));
  EXPECT_EQ(calls[1].args, Json::array({2}));
  EXPECT_EQ(calls[1].kwargs, (Json{{"dim", 0}}));
  EXPECT_EQ(calls[0].seed, 7732166795186841968ULL);
}

TEST(ResolveCases, EndsWithARecheckOfTheFirstReturningCaseUnderItsOwnSeed) {
  Task t = two_case_task();
  t.cases[0].raises = {"ValueError"};
  auto calls = resolve_cases(t, 42);
  ASSERT_EQ(calls.size(), 3U);
  EXPECT_EQ(calls[2].index, 2);
  EXPECT_EQ(calls[2].name, "rows_4x5/recheck");
  EXPECT_EQ(calls[2].args, calls[1].args);
  EXPECT_EQ(calls[2].kwargs, calls[1].kwargs);
  EXPECT_TRUE(calls[2].raises.empty());
  EXPECT_EQ(calls[2].seed, derive_seed("Math/softmax.py", "recheck|rows_4x5", 42));
  EXPECT_NE(calls[2].seed, calls[1].seed);
}

TEST(ResolveCases, SeedFollowsTheCaseNameNotItsPosition) {
  Task t = two_case_task();
  auto before = resolve_cases(t, 0);
  std::swap(t.cases[0], t.cases[1]);
  auto after = resolve_cases(t, 0);
  EXPECT_EQ(after[1].name, "rows_2x3");
  EXPECT_EQ(after[1].seed, before[0].seed);
}

TEST(ResolveCases, DifferentRunSeedsGiveDifferentCaseSeeds) {
  Task t = two_case_task();
  EXPECT_NE(resolve_cases(t, 0)[0].seed, resolve_cases(t, 1)[0].seed);
  EXPECT_EQ(resolve_cases(t, 5)[0].seed, resolve_cases(t, 5)[0].seed);
}

// --rules kernelbenchx runs the calls the public harness makes: kbx's own cases and the recheck go.
TEST(ApplyRules, KernelbenchxDropsKbxOnlyCasesAndTheRecheck) {
  Task t = two_case_task();
  t.cases[0].kbx_only = true;
  auto strict = resolve_cases(t, 42);
  apply_rules(t, "kernelbenchx");
  ASSERT_EQ(t.cases.size(), 1U);
  auto calls = resolve_cases(t, 42);
  ASSERT_EQ(calls.size(), 1U);  // no "/recheck"
  EXPECT_EQ(calls[0].index, 0);
  EXPECT_EQ(calls[0].name, "rows_4x5");
  EXPECT_EQ(calls[0].seed, strict[1].seed);  // the same inputs as under kbx's rules
}

TEST(ApplyRules, KbxKeepsEveryCaseAndTheRecheck) {
  Task t = two_case_task();
  t.cases[0].kbx_only = true;
  apply_rules(t, "kbx");
  auto calls = resolve_cases(t, 42);
  ASSERT_EQ(calls.size(), 3U);
  EXPECT_EQ(calls[2].name, "rows_2x3/recheck");
}

TEST(ApplyRules, ATaskWithNoPublicCaseIsAnErrorUnderKernelbenchx) {
  Task t = two_case_task();
  t.cases[0].kbx_only = t.cases[1].kbx_only = true;
  try {
    apply_rules(t, "kernelbenchx");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::suite);
    EXPECT_NE(std::string(e.what()).find("Math/softmax.py: no case mirrors a public test call"),
              std::string::npos) << e.what();
  }
}

// kbx suite check --cases: a task's chosen cases alone, each with the inputs it has in a full run.
TEST(SelectCases, KeepsMatchingCasesWithTheirSeedsAndDropsTheRecheck) {
  Task t = two_case_task();
  auto full = resolve_cases(t, 42);
  std::string version = t.version;
  ASSERT_TRUE(select_cases(t, " nothing_*, rows_4*"));
  ASSERT_EQ(t.cases.size(), 1U);
  auto calls = resolve_cases(t, 42);
  ASSERT_EQ(calls.size(), 1U);  // no "/recheck"
  EXPECT_EQ(calls[0].name, "rows_4x5");
  EXPECT_EQ(calls[0].seed, full[1].seed);
  EXPECT_EQ(t.version, version + "+cases=nothing_*,rows_4*");
}

TEST(SelectCases, NoMatchLeavesNothingAndAnEmptyListKeepsAll) {
  Task t = two_case_task();
  Task u = t;
  EXPECT_TRUE(select_cases(u, " , "));
  EXPECT_EQ(u.cases.size(), 2U);
  EXPECT_TRUE(u.recheck);
  EXPECT_EQ(u.version, t.version);
  EXPECT_FALSE(select_cases(t, "cols_*"));
  EXPECT_TRUE(t.cases.empty());
}

TEST(ResolveWorkloads, NamesWorkloadsPerfIndexAndSeedsThemByIndex) {
  Task t = two_case_task();
  auto calls = resolve_workloads(t, 7);
  ASSERT_EQ(calls.size(), 2U);
  EXPECT_EQ(calls[1].index, 1);
  EXPECT_EQ(calls[1].name, "perf/1");
  EXPECT_EQ(calls[1].seed, 8017323169767102532ULL);
  EXPECT_EQ(calls[0].seed, derive_seed("Math/softmax.py", "perf|0", 7));
  EXPECT_EQ(calls[1].args, t.workloads[1].args);
  EXPECT_EQ(calls[1].kwargs, (Json{{"dim", 1}}));
}

TEST(ResolveWorkloads, TaskWithoutPerfHasNoCalls) {
  Task t = two_case_task();
  t.workloads.clear();
  EXPECT_TRUE(resolve_workloads(t, 0).empty());
}

}  // namespace
}  // namespace kbx::suite
