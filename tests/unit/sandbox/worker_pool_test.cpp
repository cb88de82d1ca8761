// Tests of start_phases (the worker's account of its start, as the trace's worker-start spans
// carry it: informative, but never copied into the trace unchecked) and of sandbox_uid.
#include "kbx/sandbox/worker_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>

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

// Two kbx processes whose pids agree modulo the block count must still get different blocks: a
// block is claimed with a lock file that a second claimant (another open file description, as
// another process would have) cannot take while the first lives; the claim moves to the next.
TEST(ClaimUidBlock, ASecondClaimantOfTheSameBlockTakesTheNextOne) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("kbx-uid-block-test-" + std::to_string(static_cast<long>(getpid())));
  fs::remove_all(dir);
  EXPECT_EQ(claim_uid_block(dir, 5), 5);
  EXPECT_EQ(claim_uid_block(dir, 5), 6);
  EXPECT_EQ(claim_uid_block(dir, 5 + sandbox_uid_blocks), 7);  // by the block, not the pid
  EXPECT_EQ(claim_uid_block(dir, sandbox_uid_blocks - 1), sandbox_uid_blocks - 1);
  EXPECT_EQ(claim_uid_block(dir, sandbox_uid_blocks - 1), 0);  // wraps
  EXPECT_NE(sandbox_uid(5, 0), sandbox_uid(6, 0));
  fs::remove_all(dir);
}

TEST(ClaimUidBlock, NoClaimWhereTheFolderCannotBeMade) {
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() /
                  ("kbx-uid-block-file-" + std::to_string(static_cast<long>(getpid())));
  { std::ofstream(file) << "x"; }
  EXPECT_EQ(claim_uid_block(file / "below", 3), -1);
  fs::remove(file);
  int own = own_uid_block();
  EXPECT_GE(own, 0);
  EXPECT_LT(own, sandbox_uid_blocks);
  EXPECT_EQ(own_uid_block(), own);  // claimed once
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
