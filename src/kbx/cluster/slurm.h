// kbx slurm: one sbatch array job with a shard per array task, followed to the end, failed shards
// resubmitted, and the shards merged.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbx::cluster {

struct SlurmOptions {
  std::string source;         ///< absolute: the script runs elsewhere
  std::filesystem::path out;  ///< absolute; shards go to out/shards/I, scripts to out/slurm
  int shards = 0;
  std::string partition;
  int gpus_per_shard = 0;  ///< --gres=gpu:G and `kbx eval --gpus 0,...,G-1`
  std::string time_limit;  ///< sbatch --time (e.g. 2:00:00); empty: the partition's
  std::string account;
  std::string job_name = "kbx";
  int retries = 2;                     ///< resubmissions per shard before giving up
  double poll_s = 10;                  ///< seconds between squeue polls
  std::filesystem::path kbx;           ///< the kbx binary each shard runs
  std::vector<std::string> eval_args;  ///< more `kbx eval` flags for every shard (after --)
  std::vector<std::string> argv;
};

/// Quotes `word` for bash (single quotes, ' as '\'').
std::string shell_quote(const std::string& word);

/// Throws Error(usage) for eval flags a shard may not take (-o, --shard: kbx slurm sets them).
void check_eval_args(const std::vector<std::string>& eval_args);

/// The sbatch script: #SBATCH lines (array 1-N, one task, GPUs, partition, time, account, a log
/// per shard in out/slurm/logs), then `kbx eval SOURCE -o out/shards/$I --shard $I/N ...`, whose
/// exit status it writes to out/shards/$I/exit_status (a shard killed by scancel writes none).
std::string sbatch_script(const SlurmOptions& options);

/// What a command printed and how it ended.
struct CommandResult {
  int exit_code = 0;   ///< 127: could not be started
  std::string output;  ///< stdout and stderr together
};

/// The seam to Slurm's commands (sbatch, squeue, sacct): the real ones, or a fake in tests.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual CommandResult run(const std::vector<std::string>& argv) = 0;
};

/// Runs commands found on PATH, capturing their output.
class SystemCommandRunner : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv) override;
};

/// One shard as kbx slurm follows it.
struct ShardStatus {
  std::string job;    ///< "<array job id>_<index>" of its latest submission
  std::string state;  ///< "pending", "running", "done", "failed", "gave up"
  int submissions = 0;
  std::string last_failure;  ///< Slurm's state or the exit status of the failed attempt
};

/// Parses `squeue --noheader --array --format='%F %K %T'`: "<array job>_<index>" -> Slurm state.
std::map<std::string, std::string> parse_squeue(const std::string& output);

/// The job id `sbatch --parsable` printed ("123" or "123;cluster"); Error(io) naming the output
/// when there is none.
std::string parse_sbatch_job_id(const std::string& output);

/// Submits the array job, follows it with squeue (and sacct where accounting is on) until every
/// shard is done, resubmitting failed or killed shards (each resumes its folder) up to `retries`
/// times, reporting progress through `progress`. Returns the shards' final states; throws
/// Error(io) when a Slurm command fails. `stop` ends the following early (the jobs keep running).
std::vector<ShardStatus> run_slurm_array(const SlurmOptions& options, CommandRunner& commands,
                                         const std::function<void(const std::string&)>& progress,
                                         const std::atomic<bool>& stop);

}  // namespace kbx::cluster
