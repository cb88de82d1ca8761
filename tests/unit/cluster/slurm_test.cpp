// Tests of kbx slurm: the sbatch script, parsing Slurm's output, and following a job whose shard
// is killed (through a fake of sbatch, squeue and sacct).
#include "kbx/cluster/slurm.h"

#include <gtest/gtest.h>

#include <fstream>

#include "kbx/common/error.h"
#include "support/test_support.h"

namespace kbx::cluster {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

SlurmOptions options(const fs::path& out) {
  SlurmOptions o;
  o.source = "/data/preds.jsonl";
  o.out = out;
  o.shards = 3;
  o.kbx = "/opt/kbx/build/kbx";
  o.poll_s = 0;
  return o;
}

TEST(SbatchScript, RunsOneShardPerArrayTaskAndRecordsItsExitStatus) {
  auto o = options("/runs/x");
  o.eval_args = {"--device", "cpu", "--model", "it's"};
  auto s = sbatch_script(o);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0U);
  EXPECT_NE(s.find("#SBATCH --array=1-3\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --output=/runs/x/slurm/logs/shard-%a-%A.out\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find("'/opt/kbx/build/kbx' eval '/data/preds.jsonl' -o \"$out\" --shard \"$shard/3\" "
                   "'--device' 'cpu' '--model' 'it'\\''s'\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("echo \"$status\" > \"$out/exit_status\""), std::string::npos) << s;
  EXPECT_EQ(s.find("--gres"), std::string::npos);
  EXPECT_EQ(s.find("--partition"), std::string::npos);
}

TEST(SbatchScript, RequestsGpusPartitionTimeAndAccountWhenAsked) {
  auto o = options("/runs/x");
  o.gpus_per_shard = 2;
  o.partition = "h200";
  o.time_limit = "2:00:00";
  o.account = "lab";
  auto s = sbatch_script(o);
  for (const char* line : {"#SBATCH --gres=gpu:2\n", "#SBATCH --partition=h200\n",
                           "#SBATCH --time=2:00:00\n", "#SBATCH --account=lab\n"}) {
    EXPECT_NE(s.find(line), std::string::npos) << line << s;
  }
  EXPECT_NE(s.find(" --gpus 0,1"), std::string::npos) << s;
}

TEST(CheckEvalArgs, RefusesTheFlagsKbxSlurmSetsItself) {
  EXPECT_NO_THROW(check_eval_args({"--device", "cpu"}));
  for (const char* flag : {"-o", "--out", "--shard", "--shard=1/2", "--out=x"}) {
    EXPECT_THROW(check_eval_args({flag, "x"}), Error) << flag;
  }
}

TEST(ParseSlurm, ReadsArrayTasksAndJobIds) {
  auto q = parse_squeue("41 2 RUNNING\n41 3 PENDING\n");
  EXPECT_EQ(q.size(), 2U);
  EXPECT_EQ(q["41_2"], "RUNNING");
  EXPECT_EQ(q["41_3"], "PENDING");
  EXPECT_EQ(parse_sbatch_job_id("123\n"), "123");
  EXPECT_EQ(parse_sbatch_job_id("123;cluster\n"), "123");
  EXPECT_THROW(parse_sbatch_job_id("sbatch: error: invalid partition\n"), Error);
}

/// A Slurm that runs shards 1 and 3 at once, and whose shard 2 is cancelled the first time.
class FakeSlurm : public CommandRunner {
 public:
  explicit FakeSlurm(fs::path out) : out_(std::move(out)) {}

  CommandResult run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    if (argv[0] == "sbatch") {
      std::string array = argv[2].substr(std::string("--array=").size());
      std::string job = std::to_string(++job_);
      arrays.push_back(array);
      return {0, job + "\n"};
    }
    if (argv[0] == "squeue") {
      ++polls_;
      if (polls_ == 1) {
        return {0, "1 1 RUNNING\n1 2 RUNNING\n1 3 PENDING\n"};
      }
      // After the first poll every submitted shard has ended: 1 and 3 finished, 2 was cancelled
      // in its first attempt and finishes in its second.
      finish(1, 0);
      finish(3, 1);
      if (job_ >= 2) {
        finish(2, 0);
      }
      return {0, ""};
    }
    if (argv[0] == "sacct") {
      return {0, "CANCELLED by 0\n"};
    }
    return {127, "unexpected"};
  }

  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> arrays;

 private:
  void finish(int shard, int status) {
    fs::create_directories(out_ / "shards" / std::to_string(shard));
    std::ofstream(out_ / "shards" / std::to_string(shard) / "exit_status") << status << "\n";
  }

  fs::path out_;
  int job_ = 0;
  int polls_ = 0;
};

TEST(RunSlurmArray, ResubmitsAShardThatEndedWithoutAnExitStatusAndFinishes) {
  ScopedTempDir dir;
  auto o = options(dir.path());
  FakeSlurm slurm(dir.path());
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  auto shards = run_slurm_array(
      o, slurm, [&](const std::string& l) { lines.push_back(l); }, stop);
  ASSERT_EQ(shards.size(), 3U);
  for (const auto& s : shards) {
    EXPECT_EQ(s.state, "done");
  }
  EXPECT_EQ(slurm.arrays, (std::vector<std::string>{"1,2,3", "2"}));
  EXPECT_EQ(shards[1].submissions, 2);
  EXPECT_EQ(shards[1].job, "2_2");
  EXPECT_NE(shards[1].last_failure.find("CANCELLED"), std::string::npos) << shards[1].last_failure;
  EXPECT_TRUE(fs::exists(dir.path() / "slurm" / "shards.sbatch"));
  bool progress_seen = false;
  for (const auto& l : lines) {
    progress_seen = progress_seen || l == "3 shards: 3 done (1 resubmitted)";
  }
  EXPECT_TRUE(progress_seen) << ::testing::PrintToString(lines);
}

TEST(RunSlurmArray, GivesUpOnAShardAfterItsRetries) {
  ScopedTempDir dir;
  auto o = options(dir.path());
  o.retries = 0;
  FakeSlurm slurm(dir.path());
  std::atomic<bool> stop{false};
  auto shards = run_slurm_array(
      o, slurm, [](const std::string&) {}, stop);
  EXPECT_EQ(shards[1].state, "gave up");
  EXPECT_EQ(slurm.arrays.size(), 1U);
}

}  // namespace
}  // namespace kbx::cluster
