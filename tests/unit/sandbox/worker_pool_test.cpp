// Tests of start_phases (the worker's account of its start, as the trace's worker-start spans
// carry it: informative, but never copied into the trace unchecked) and of sandbox_uid.
#include "kbx/sandbox/worker_pool.h"

#include <gtest/gtest.h>

#include <set>

#include <limits>

namespace kbx::sandbox {
namespace {

// Two kbx processes on one machine give their workers different uids (kbx tells a candidate's
// processes by its uid), every uid a positive int above the base.
TEST(SandboxUid, DiffersBetweenKbxProcessesAndWrapsWithinOne) {
  EXPECT_EQ(sandbox_uid(1234, 0), sandbox_uid(1234, 4096));
  EXPECT_NE(sandbox_uid(1234, 0), sandbox_uid(1234, 1));
  std::set<int> uids;
  for (int pid : {1, 2, 1234, 1235, 32768, 4194303, 4194304}) {
    for (int n : {0, 1, 7, 4095}) {
      int uid = sandbox_uid(pid, n);
      EXPECT_GE(uid, sandbox_uid_base);
      EXPECT_LT(uid, 1'100'000'000);
      uids.insert(uid);
    }
  }
  EXPECT_EQ(uids.size(), 7U * 4U);  // the workers of one kbx never meet another's
}

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
