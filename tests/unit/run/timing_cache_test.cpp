// Tests of the reference timing cache's file format (`--reference-timing cached`).
#include <gtest/gtest.h>

#include "kbx/run/reference_service.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "kbx/suite/suite.h"

namespace kbx::run {
namespace {

Json reply_of(const Json& results) { return Json{{"op", "timings"}, {"results", results}}; }

suite::Task task_named(const std::string& key) {
  suite::Task t;
  t.key = key;
  t.version = "3";
  return t;
}

TEST(TimingCache, AReplyRoundTripsThroughTheFileText) {
  Json reply = reply_of(Json::array(
      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.25, 0.75}}, {"warmup_calls", 4},
        {"host_ms", 0.01}},
       {{"index", 1}, {"status", "ok"}, {"samples_ms", {2.0, 2.5}}}}));
  std::string text = cached_timings_text(task_named("Math/add.py"), reply);
  EXPECT_EQ(Json::parse(text).at("task"), "Math/add.py");
  EXPECT_EQ(Json::parse(text).at("task_version"), "3");
  auto timings = parse_cached_timings(text, 2);
  ASSERT_TRUE(timings);
  ASSERT_EQ(timings->size(), 2U);
  EXPECT_EQ((*timings)[0].samples_ms, (std::vector<double>{0.5, 0.25, 0.75}));
  EXPECT_EQ((*timings)[0].warmup_calls, 4);
  EXPECT_EQ((*timings)[0].host_ms, 0.01);
  EXPECT_EQ((*timings)[1].workload, 1);
}

TEST(TimingCache, TornForeignOrMismatchedFilesAreMissesNotErrors) {
  Json ok = reply_of(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}}));
  std::string text = cached_timings_text(task_named("Math/add.py"), ok);
  EXPECT_FALSE(parse_cached_timings(text.substr(0, text.size() / 2), 1));  // torn
  EXPECT_FALSE(parse_cached_timings("{\"something\": 1}", 1));             // foreign
  EXPECT_FALSE(parse_cached_timings("", 1));
  EXPECT_FALSE(parse_cached_timings(text, 2));  // the task now has two workloads
  Json negative = reply_of(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {-1.0}}}}));
  EXPECT_FALSE(parse_cached_timings(cached_timings_text(task_named("Math/add.py"), negative), 1));
}

TEST(TimingCache, AFailedWorkloadIsNeverServedFromTheCache) {
  Json reply = reply_of(Json::array(
      {{{"index", 0},
        {"status", "error"},
        {"error", {{"kind", "out_of_memory"}, {"type", "OutOfMemoryError"}, {"message", "CUDA"}}}}}));
  EXPECT_FALSE(parse_cached_timings(cached_timings_text(task_named("Math/add.py"), reply), 1));
}

TEST(TimingFailure, NamesTheFirstWorkloadThatDidNotTime) {
  store::TimingRecord ok;
  ok.workload = 0;
  ok.status = "ok";
  store::TimingRecord oom = ok;
  oom.workload = 1;
  oom.status = "error";
  oom.error = "out of memory";
  store::TimingRecord dead = oom;
  dead.workload = 2;
  dead.error = "the worker died";
  EXPECT_EQ(first_timing_failure({ok, oom, dead}), "workload 1: out of memory");
  EXPECT_EQ(first_timing_failure({ok}), "");
  EXPECT_EQ(first_timing_failure({}), "");
}

// Each task's reference is timed by one of the GPU's reference workers: always the same one for a
// task (a resumed or repeated run draws it from the same lane), and the bundled suite's tasks
// spread over four lanes, so no one process's offset lands on most of the suite.
TEST(TimingLaneIndex, IsFixedPerTaskAndSpreadsTheSuiteOverTheLanes) {
  EXPECT_EQ(timing_lane_index("Math/add.py", 1), 0U);
  EXPECT_EQ(timing_lane_index("Math/add.py", 0), 0U);
  EXPECT_EQ(timing_lane_index("Math/add.py", 4), timing_lane_index("Math/add.py", 4));
  auto suite = suite::load_suite(std::filesystem::path(KBX_SOURCE_DIR) / "suites" / "kernelbenchx");
  ASSERT_GT(suite.tasks.size(), 100U);
  for (std::size_t lanes : {2U, 3U, 4U}) {
    std::map<std::size_t, int> count;
    for (const auto& t : suite.tasks) {
      std::size_t i = timing_lane_index(t.key, lanes);
      ASSERT_LT(i, lanes);
      count[i] += 1;
    }
    ASSERT_EQ(count.size(), lanes);
    for (const auto& [lane, n] : count) {
      // A fair split is size / lanes; a hash may stray, never by half.
      EXPECT_GT(n, static_cast<int>(suite.tasks.size() / lanes / 2))
          << lanes << " lanes, lane " << lane;
    }
  }
}

// A cached run starts only the lanes its host-share tasks re-time their references on: each such
// lane once, whichever task needs it first, and none that no task maps to.
TEST(TimingLaneIndices, AreTheTasksLanesEachOnce) {
  auto suite = suite::load_suite(std::filesystem::path(KBX_SOURCE_DIR) / "suites" / "kernelbenchx");
  ASSERT_GT(suite.tasks.size(), 100U);
  std::vector<const suite::Task*> all;
  for (const auto& t : suite.tasks) {
    all.push_back(&t);
  }
  auto every = timing_lane_indices(all, 4);
  ASSERT_EQ(every.size(), 4U);
  EXPECT_EQ(every[0], timing_lane_index(all[0]->key, 4));
  std::sort(every.begin(), every.end());
  EXPECT_EQ(every, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(timing_lane_indices({}, 4).empty());
  EXPECT_EQ(timing_lane_indices(all, 1), std::vector<std::size_t>{0});
  // Two tasks on one lane give it once; a task on another lane adds that lane after it.
  const suite::Task* first = all[0];
  const suite::Task* same = nullptr;
  const suite::Task* other = nullptr;
  for (const auto* t : all) {
    if (t == first) {
      continue;
    }
    if (!same && timing_lane_index(t->key, 4) == timing_lane_index(first->key, 4)) {
      same = t;
    } else if (!other && timing_lane_index(t->key, 4) != timing_lane_index(first->key, 4)) {
      other = t;
    }
  }
  ASSERT_TRUE(same && other);
  EXPECT_EQ(timing_lane_indices({first, same, other}, 4),
            (std::vector<std::size_t>{timing_lane_index(first->key, 4),
                                      timing_lane_index(other->key, 4)}));
}

}  // namespace
}  // namespace kbx::run
