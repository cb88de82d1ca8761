// Tests of start_phases: the worker's account of its start, as the trace's worker-start spans
// carry it (informative, but a worker's header is never copied into the trace unchecked).
#include "kbx/sandbox/worker_pool.h"

#include <gtest/gtest.h>

#include <limits>

namespace kbx::sandbox {
namespace {

TEST(StartPhases, KeepsTheWorkersOwnPhasesInStartOrder) {
  Json ready = Json::parse(R"({"op": "ready", "pid": 7, "warm_ms": 1200.5,
      "phases_ms": {"triton_driver": 80.0, "detach": 1.5, "cuda_context": 900.25, "setup": 3,
                    "confine": 40.0, "cupti": 60.0, "flush_buffer": 12.0, "hold_wait": 0.5}})");
  Json phases = start_phases(ready);
  ASSERT_EQ(phases.size(), 8U);
  EXPECT_EQ(phases["hold_wait"], 0.5);
  EXPECT_EQ(phases["cuda_context"], 900.25);
  EXPECT_EQ(phases["setup"], 3.0);
}

TEST(StartPhases, DropsUnknownNamesAndValuesThatAreNotTimes) {
  Json ready = Json::parse(R"({"phases_ms": {"detach": -1, "setup": "fast", "confine": 2.0,
                                             "<script>": 5.0, "cupti": null}})");
  ready["phases_ms"]["cuda_context"] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(start_phases(ready), Json({{"confine", 2.0}}));
}

TEST(StartPhases, NoneWhereTheHeaderHasNone) {
  EXPECT_TRUE(start_phases(Json::object()).empty());
  EXPECT_TRUE(start_phases(Json::parse(R"({"phases_ms": [1, 2]})")).empty());
  EXPECT_TRUE(start_phases(Json()).empty());
}

}  // namespace
}  // namespace kbx::sandbox
