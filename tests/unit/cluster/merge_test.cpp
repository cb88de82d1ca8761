// Tests of kbx merge's checks: overlap, shards, suites and judging options, and --combine.
#include "kbx/cluster/merge.h"

#include <gtest/gtest.h>

#include "kbx/common/error.h"

namespace kbx::cluster {
namespace {

RunInfo run(const std::string& name, const std::string& shard, std::vector<std::string> ids) {
  RunInfo r;
  r.name = name;
  r.label = name;
  r.config =
      Json{{"device", "cpu"},        {"seed", 0},  {"rules", "kbx"}, {"suite_root", "/a/suite"},
           {"suite_version", "abc"}, {"tasks", ""}};
  if (!shard.empty()) {
    r.config["shard"] = shard;
  }
  r.device_models = {"cpu (Xeon)"};
  r.task_versions = {{"Math/add.py", "v1"}};
  for (const auto& id : ids) {
    r.evaluated[id] = "Math/add.py, preds.jsonl:1";
  }
  return r;
}

std::string usage_error(const std::vector<RunInfo>& runs, bool combine = false,
                        bool partial = false) {
  try {
    (void)check_mergeable(runs, combine, partial);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  ADD_FAILURE() << "expected the merge to be refused";
  return {};
}

TEST(CheckMergeable, AcceptsTheShardsOfOneSplitEvenWithTheSuiteElsewhere) {
  auto a = run("s1", "1/2", {"x"});
  auto b = run("s2", "2/2", {"y"});
  b.config["suite_root"] = "/b/suite";  // the fingerprint matches: another checkout of one suite
  EXPECT_TRUE(check_mergeable({a, b}, false, false).empty());
}

TEST(CheckMergeable, RefusesASubmissionEvaluatedInTwoRuns) {
  auto msg = usage_error({run("s1", "1/2", {"x", "y"}), run("s2", "2/2", {"y"})});
  EXPECT_NE(msg.find("is evaluated in both 's1' and 's2'"), std::string::npos) << msg;
}

TEST(CheckMergeable, RefusesAMissingShardUnlessPartial) {
  auto msg = usage_error({run("s1", "1/3", {"x"}), run("s3", "3/3", {"z"})});
  EXPECT_NE(msg.find("shard 2 of 3 is missing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--partial"), std::string::npos) << msg;
  EXPECT_NO_THROW(
      (void)check_mergeable({run("s1", "1/3", {"x"}), run("s3", "3/3", {"z"})}, false, true));
}

TEST(CheckMergeable, RefusesTheSameShardTwiceAndShardsOfDifferentSplits) {
  EXPECT_NE(
      usage_error({run("a", "1/2", {"x"}), run("b", "1/2", {"y"})}).find("are both shard 1/2"),
      std::string::npos);
  EXPECT_NE(usage_error({run("a", "1/2", {"x"}), run("b", "2/3", {"y"})}).find("different splits"),
            std::string::npos);
}

TEST(CheckMergeable, RefusesARunWithSubmissionsWithoutAVerdictUnlessPartial) {
  auto a = run("a", "", {"x"});
  a.pending = 2;
  auto msg = usage_error({a, run("b", "", {"y"})});
  EXPECT_NE(msg.find("'a' has 2 submissions without a verdict"), std::string::npos) << msg;
}

TEST(CheckMergeable, RefusesATaskSeenAtTwoVersionsEvenWithCombine) {
  auto b = run("b", "", {"y"});
  b.task_versions["Math/add.py"] = "v2";
  auto msg = usage_error({run("a", "", {"x"}), b}, true);
  EXPECT_NE(msg.find("task Math/add.py has version v1 in 'a' but v2 in 'b'"), std::string::npos)
      << msg;
}

TEST(CheckMergeable, RefusesDifferentJudgingOptionsNamingTheFieldAndCombine) {
  auto b = run("b", "", {"y"});
  b.config["seed"] = 7;
  auto msg = usage_error({run("a", "", {"x"}), b});
  EXPECT_NE(msg.find("seed differs ('a' has 0, 'b' has 7)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--combine"), std::string::npos) << msg;
}

TEST(CheckMergeable, RefusesOtherGpuModelsUnlessCombined) {
  auto a = run("a", "", {"x"});
  auto b = run("b", "", {"y"});
  a.device_models = {"NVIDIA H200"};
  b.device_models = {"NVIDIA A100-SXM4-80GB"};
  auto msg = usage_error({a, b});
  EXPECT_NE(msg.find("device model differs"), std::string::npos) << msg;
  auto diffs = check_mergeable({a, b}, true, false);
  ASSERT_EQ(diffs.size(), 1U);
  EXPECT_EQ(diffs[0].field, "device model");
}

TEST(MergedConfig, KeepsCommonOptionsDropsTheShardAndRecordsCombinedFieldsAndSources) {
  auto a = run("a", "1/2", {"x"});
  auto b = run("b", "2/2", {"y"});
  a.label = "shard 1/2";
  b.label = "shard 2/2";
  a.config["labels"] = Json{{"model", "m1"}, {"method", "one-shot"}};
  b.config["labels"] = Json{{"model", "m2"}, {"method", "one-shot"}};
  b.config["seed"] = 3;
  auto diffs = check_mergeable({a, b}, true, false);
  ASSERT_EQ(diffs.size(), 2U);
  Json c = merged_config({a, b}, diffs);
  EXPECT_FALSE(c.contains("shard"));
  EXPECT_EQ(c["device"], "cpu");
  EXPECT_EQ(c["seed"], (Json{{"combined", {0, 3}}}));
  EXPECT_EQ(c["labels"], (Json{{"model", "m1|m2"}, {"method", "one-shot"}}));
  ASSERT_EQ(c["merged_from"].size(), 2U);
  EXPECT_EQ(c["merged_from"][1]["label"], "shard 2/2");
  EXPECT_EQ(c["merged_from"][1]["shard"], "2/2");
}

}  // namespace
}  // namespace kbx::cluster
