// Tests of the reference timing cache's file format (`--reference-timing cached`).
#include <gtest/gtest.h>

#include "kbx/run/reference_service.h"

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

}  // namespace
}  // namespace kbx::run
