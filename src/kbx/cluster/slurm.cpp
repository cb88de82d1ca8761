// kbx slurm: the sbatch script, submitting, following with squeue/sacct, resubmitting.
#include "kbx/cluster/slurm.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "kbx/common/error.h"
#include "kbx/common/strings.h"

extern char** environ;

namespace kbx::cluster {
namespace {

namespace fs = std::filesystem;

fs::path script_path(const SlurmOptions& o) { return o.out / "slurm" / "shards.sbatch"; }

fs::path shard_dir(const SlurmOptions& o, int index) {
  return o.out / "shards" / std::to_string(index);
}

/// The exit status a shard's script recorded, or -1 when it recorded none (killed, or not run).
int recorded_exit_status(const SlurmOptions& o, int index) {
  std::ifstream in(shard_dir(o, index) / "exit_status");
  int status = -1;
  if (!(in >> status)) {
    return -1;
  }
  return status;
}

/// Slurm's state of a finished job from sacct, or "" where accounting is off.
std::string sacct_state(CommandRunner& commands, const std::string& job) {
  auto r = commands.run(
      {"sacct", "--noheader", "--parsable2", "--allocations", "--jobs", job, "--format=State"});
  if (r.exit_code != 0) {
    return "";
  }
  std::string first(trim(r.output.substr(0, r.output.find('\n'))));
  return first;
}

std::string submit(const SlurmOptions& o, CommandRunner& commands, const std::vector<int>& shards) {
  for (int i : shards) {
    std::error_code ec;
    fs::remove(shard_dir(o, i) / "exit_status", ec);  // a stale one would pass for this attempt's
  }
  auto r = commands.run({"sbatch", "--parsable", fmt::format("--array={}", fmt::join(shards, ",")),
                         script_path(o).string()});
  if (r.exit_code == 127) {
    throw Error(ErrorKind::io,
                "sbatch is not on PATH ({}): run kbx slurm where Slurm's commands are (a login "
                "node), or --dry-run to print the script",
                trim(r.output));
  }
  if (r.exit_code != 0) {
    throw Error(ErrorKind::io, "sbatch failed (exit {}): {}", r.exit_code, trim(r.output));
  }
  return parse_sbatch_job_id(r.output);
}

/// Slurm's job states, as kbx slurm reports them: "pending", "running", or "" for a job that
/// has ended (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...).
std::string follow_state(const std::string& slurm_state) {
  static const std::set<std::string> waiting{"PENDING",      "CONFIGURING", "REQUEUED",
                                             "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"};
  static const std::set<std::string> running{"RUNNING",   "COMPLETING", "SUSPENDED", "STOPPED",
                                             "SIGNALING", "STAGE_OUT",  "RESIZING"};
  if (waiting.count(slurm_state) > 0) {
    return "pending";
  }
  return running.count(slurm_state) > 0 ? "running" : "";
}

std::map<std::string, std::string> poll_queue(CommandRunner& commands,
                                              const std::set<std::string>& jobs) {
  if (jobs.empty()) {
    return {};
  }
  auto r = commands.run({"squeue", "--noheader", "--array", "--states=all", "--format=%F %K %T",
                         fmt::format("--jobs={}", fmt::join(jobs, ","))});
  if (r.exit_code != 0) {
    if (r.output.find("Invalid job id") != std::string::npos) {
      return {};  // every job has ended and left the controller's memory
    }
    throw Error(ErrorKind::io, "squeue failed (exit {}): {}", r.exit_code, trim(r.output));
  }
  return parse_squeue(r.output);
}

std::string progress_line(const std::vector<ShardStatus>& shards, int resubmitted) {
  std::map<std::string, int> counts;
  for (const auto& s : shards) {
    ++counts[s.state];
  }
  std::vector<std::string> parts;
  for (const char* state : {"done", "running", "pending", "failed", "gave up"}) {
    if (counts[state] > 0) {
      parts.push_back(fmt::format("{} {}", counts[state], state));
    }
  }
  return fmt::format("{} shards: {}{}", shards.size(), fmt::join(parts, ", "),
                     resubmitted > 0 ? fmt::format(" ({} resubmitted)", resubmitted) : "");
}

void write_script(const SlurmOptions& o) {
  fs::create_directories(o.out / "slurm" / "logs");
  fs::create_directories(o.out / "shards");
  std::ofstream f(script_path(o));
  f << sbatch_script(o);
  if (!f) {
    throw Error(ErrorKind::io, "cannot write {}", script_path(o).string());
  }
}

}  // namespace

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

void check_eval_args(const std::vector<std::string>& eval_args) {
  for (const auto& a : eval_args) {
    for (const char* flag : {"-o", "--out", "--shard"}) {
      if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0) {
        throw Error(ErrorKind::usage,
                    "'{}' after -- is set by kbx slurm for each shard; leave it out", a);
      }
    }
  }
}

std::string sbatch_script(const SlurmOptions& o) {
  std::string s = "#!/bin/bash\n# Written by kbx slurm: one kbx eval shard per array task.\n";
  s += fmt::format("#SBATCH --job-name={}\n", o.job_name);
  s += fmt::format("#SBATCH --array=1-{}\n", o.shards);
  s += "#SBATCH --ntasks=1\n";
  s +=
      fmt::format("#SBATCH --output={}\n", (o.out / "slurm" / "logs" / "shard-%a-%A.out").string());
  if (!o.partition.empty()) {
    s += fmt::format("#SBATCH --partition={}\n", o.partition);
  }
  if (o.gpus_per_shard > 0) {
    s += fmt::format("#SBATCH --gres=gpu:{}\n", o.gpus_per_shard);
  }
  if (!o.time_limit.empty()) {
    s += fmt::format("#SBATCH --time={}\n", o.time_limit);
  }
  if (!o.account.empty()) {
    s += fmt::format("#SBATCH --account={}\n", o.account);
  }
  s += "set -u\n";
  s += "shard=\"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch --array}\"\n";
  s += fmt::format("out={}/\"$shard\"\n", shell_quote((o.out / "shards").string()));
  s += "mkdir -p \"$out\"\nrm -f \"$out/exit_status\"\n";
  std::string eval = fmt::format("{} eval {} -o \"$out\" --shard \"$shard/{}\"",
                                 shell_quote(o.kbx.string()), shell_quote(o.source), o.shards);
  bool has_gpus = false;
  for (const auto& a : o.eval_args) {
    has_gpus = has_gpus || a == "--gpus" || a.rfind("--gpus=", 0) == 0;
  }
  if (o.gpus_per_shard > 0 && !has_gpus) {  // Slurm numbers the allocated GPUs from 0
    std::vector<int> gpus;
    for (int g = 0; g < o.gpus_per_shard; ++g) {
      gpus.push_back(g);
    }
    eval += fmt::format(" --gpus {}", fmt::join(gpus, ","));
  }
  for (const auto& a : o.eval_args) {
    eval += " " + shell_quote(a);
  }
  // Exit 75: the folder is still locked by a killed attempt whose processes are being reaped.
  s += "for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do\n  " + eval +
       "\n  status=$?\n  [ \"$status\" -ne 75 ] && break\n  sleep 10\ndone\n";
  s += "echo \"$status\" > \"$out/exit_status\"\nexit \"$status\"\n";
  return s;
}

std::map<std::string, std::string> parse_squeue(const std::string& output) {
  std::map<std::string, std::string> out;
  std::istringstream in(output);
  std::string job;
  std::string index;
  std::string state;
  while (in >> job >> index >> state) {
    out[job + "_" + index] = state;
  }
  return out;
}

std::string parse_sbatch_job_id(const std::string& output) {
  std::string first(trim(output.substr(0, output.find_first_of(";\n"))));
  bool digits = !first.empty();
  for (char c : first) {
    digits = digits && c >= '0' && c <= '9';
  }
  if (!digits) {
    throw Error(ErrorKind::io, "sbatch --parsable printed no job id: '{}'", trim(output));
  }
  return first;
}

CommandResult SystemCommandRunner::run(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(ErrorKind::io, "pipe: {}", std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  CommandResult result;
  if (rc != 0) {
    close(fds[0]);
    return {127, fmt::format("{}: cannot start: {}", argv[0], std::strerror(rc))};
  }
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      break;
    }
    result.output.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (result.exit_code == 127 && result.output.empty()) {
    result.output = fmt::format("{}: not found", argv[0]);
  }
  return result;
}

std::vector<ShardStatus> run_slurm_array(const SlurmOptions& o, CommandRunner& commands,
                                         const std::function<void(const std::string&)>& progress,
                                         const std::atomic<bool>& stop) {
  write_script(o);
  std::vector<ShardStatus> shards(static_cast<std::size_t>(o.shards));
  std::vector<int> all;
  for (int i = 1; i <= o.shards; ++i) {
    all.push_back(i);
  }
  auto submit_shards = [&](const std::vector<int>& which) {
    std::string job = submit(o, commands, which);
    for (int i : which) {
      auto& s = shards[static_cast<std::size_t>(i - 1)];
      s.job = fmt::format("{}_{}", job, i);
      s.state = "pending";
      ++s.submissions;
    }
    progress(fmt::format("submitted job {} (shard{} {})", job, which.size() == 1 ? "" : "s",
                         fmt::join(which, ",")));
  };
  submit_shards(all);
  int resubmitted = 0;
  std::string last_line;
  while (!stop.load()) {
    std::set<std::string> jobs;
    for (const auto& s : shards) {
      if (s.state == "pending" || s.state == "running") {
        jobs.insert(s.job.substr(0, s.job.find('_')));
      }
    }
    if (jobs.empty()) {
      break;
    }
    auto queue = poll_queue(commands, jobs);
    std::vector<int> again;
    for (int i = 1; i <= o.shards; ++i) {
      auto& s = shards[static_cast<std::size_t>(i - 1)];
      if (s.state != "pending" && s.state != "running") {
        continue;
      }
      std::string slurm_state;
      if (auto it = queue.find(s.job); it != queue.end()) {
        if (auto state = follow_state(it->second); !state.empty()) {
          s.state = state;
          continue;
        }
        slurm_state = it->second;  // ended, and still in the controller's memory
      }
      int status = recorded_exit_status(o, i);
      if (status == 0 || status == 1) {  // 1: SOURCE had input problems; the shard is complete
        s.state = "done";
        continue;
      }
      if (slurm_state.empty()) {
        slurm_state = sacct_state(commands, s.job);
      }
      s.last_failure = status < 0 ? "no exit status recorded" : fmt::format("kbx exit {}", status);
      if (!slurm_state.empty()) {
        s.last_failure += ", Slurm: " + slurm_state;
      }
      s.state = s.submissions > o.retries ? "gave up" : "failed";
      progress(fmt::format("shard {} ({}) ended without finishing: {}; log: {}{}", i, s.job,
                           s.last_failure, (o.out / "slurm" / "logs").string(),
                           s.state == "failed" ? "; resubmitting it" : "; giving up on it"));
      if (s.state == "failed") {
        again.push_back(i);
      }
    }
    if (!again.empty()) {
      resubmitted += static_cast<int>(again.size());
      submit_shards(again);
    }
    if (auto line = progress_line(shards, resubmitted); line != last_line) {
      progress(line);
      last_line = line;
    }
    bool finished = true;
    for (const auto& s : shards) {
      finished = finished && s.state != "pending" && s.state != "running";
    }
    if (finished) {
      break;
    }
    for (int t = 0; t < static_cast<int>(o.poll_s * 10) && !stop.load(); ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return shards;
}

}  // namespace kbx::cluster
