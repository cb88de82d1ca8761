// Tests of the shard split: parsing I/N, a deterministic balanced assignment covering each item
// once.
#include "kbx/run/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "kbx/suite/suite.h"

namespace kbx::run {
namespace {

std::vector<ShardItem> items(int tasks, int per_task) {
  std::vector<ShardItem> out;
  for (int t = 0; t < tasks; ++t) {
    for (int k = 0; k < per_task; ++k) {
      out.push_back({"id" + std::to_string(t) + "_" + std::to_string(k),
                     "Cat/t" + std::to_string(t), 1.0 + (t % 5), 2.0});
    }
  }
  return out;
}

TEST(ParseShard, AcceptsIOfNFromOne) {
  auto s = parse_shard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->label(), "2/3");
  EXPECT_TRUE(parse_shard("1/1").ok());
}

TEST(ParseShard, RefusesZeroOutOfRangeAndJunkNamingTheText) {
  for (const char* bad : {"0/3", "4/3", "3", "a/3", "1/0", "1/", "/3", "1/3x", "-1/3", "1/20000"}) {
    auto s = parse_shard(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(std::string(s.error().what()).find(bad), std::string::npos) << s.error().what();
  }
}

TEST(AssignShards, CoversEveryItemExactlyOnceWithShardsFromOne) {
  auto all = items(7, 3);
  auto shard_of = assign_shards(all, 3);
  ASSERT_EQ(shard_of.size(), all.size());
  for (int s : shard_of) {
    EXPECT_GE(s, 1);
    EXPECT_LE(s, 3);
  }
}

TEST(AssignShards, DependsOnTheItemsNotOnTheirOrder) {
  auto all = items(9, 2);
  auto first = assign_shards(all, 4);
  std::map<std::string, int> by_id;
  for (std::size_t i = 0; i < all.size(); ++i) {
    by_id[all[i].id] = first[i];
  }
  auto shuffled = all;
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  auto second = assign_shards(shuffled, 4);
  for (std::size_t i = 0; i < shuffled.size(); ++i) {
    EXPECT_EQ(second[i], by_id[shuffled[i].id]) << shuffled[i].id;
  }
}

TEST(AssignShards, BalancesTheExpectedCost) {
  auto all = items(40, 1);
  auto shard_of = assign_shards(all, 4);
  std::vector<double> load(4, 0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    load[static_cast<std::size_t>(shard_of[i] - 1)] += all[i].cost + all[i].task_cost;
  }
  auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 7.0) << "the largest item costs 7";
}

TEST(AssignShards, KeepsATasksSubmissionsTogetherWhenThatCostsNothing) {
  // Two tasks, two equal submissions each, two shards: each shard gets one task's pair.
  std::vector<ShardItem> all{
      {"a1", "A", 1, 10}, {"a2", "A", 1, 10}, {"b1", "B", 1, 10}, {"b2", "B", 1, 10}};
  auto shard_of = assign_shards(all, 2);
  EXPECT_EQ(shard_of[0], shard_of[1]);
  EXPECT_EQ(shard_of[2], shard_of[3]);
  EXPECT_NE(shard_of[0], shard_of[2]);
}

TEST(AssignShards, MoreShardsThanItemsLeavesSomeEmpty) {
  auto shard_of = assign_shards({{"x", "A", 1, 1}}, 3);
  EXPECT_EQ(shard_of, std::vector<int>{1});
}

}  // namespace
}  // namespace kbx::run

namespace kbx::run {
namespace {

// The bundled suite with one submission per task (references as submissions), timed as on a GPU:
// eight shards' expected costs stay within 10% of each other, and every task lands on one shard.
TEST(AssignShards, SplitsTheBundledSuiteEvenly) {
  auto suite = suite::load_suite(std::filesystem::path(KBX_SOURCE_DIR) / "suites" / "kernelbenchx");
  ASSERT_GT(suite.tasks.size(), 100U);
  std::vector<ShardItem> all;
  for (const auto& t : suite.tasks) {
    for (int k = 0; k < 3; ++k) {
      all.push_back({t.key + "#" + std::to_string(k), t.key, submission_cost(t, true),
                     task_setup_cost(t, true)});
    }
  }
  auto shard_of = assign_shards(all, 8);
  std::vector<double> load(8, 0);
  std::map<std::string, int> shard_of_task;
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto [it, fresh] = shard_of_task.emplace(all[i].task_key, shard_of[i]);
    load[static_cast<std::size_t>(shard_of[i] - 1)] +=
        all[i].cost + (fresh || it->second != shard_of[i] ? all[i].task_cost : 0.0);
    EXPECT_EQ(it->second, shard_of[i]) << all[i].task_key << " is split";
  }
  auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LT(*hi / *lo, 1.10) << "loads " << ::testing::PrintToString(load);
}

}  // namespace
}  // namespace kbx::run
