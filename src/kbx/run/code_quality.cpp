// measure_code_quality: one `python -m kbx_worker.code_quality IN OUT` over every submission.
#include "kbx/run/code_quality.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>
#include <variant>
#include <vector>

#include "kbx/common/files.h"

extern char** environ;

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

Json failed(const std::string& why) {
  return Json{{"radon", nullptr},
              {"note", "code quality not measured: " + why},
              {"results", Json::object()}};
}

// The parent's environment with PYTHONPATH set to the worker package's folder.
std::vector<std::string> step_environment(const fs::path& worker_path) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0) {
      env.emplace_back(*e);
    }
  }
  env.push_back("PYTHONPATH=" + worker_path.string());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// Starts the step with stdout and stderr in `log`; the pid, or an error message.
std::variant<pid_t, std::string> spawn_step(const CodeQualityStep& step, const fs::path& in,
                                            const fs::path& out, const fs::path& log) {
  int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return fmt::format("cannot open {}: {}", log.string(), std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  std::vector<std::string> args{step.python, "-m", "kbx_worker.code_quality", in.string(),
                                out.string()};
  auto env = step_environment(step.worker_path);
  auto argv = pointers(args);
  auto envp = pointers(env);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, step.python.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(log_fd);
  if (rc != 0) {
    return fmt::format("cannot start '{}': {}", step.python, std::strerror(rc));
  }
  return pid;
}

// Waits for `pid` until the deadline, then kills it; "" when it exited 0, else what happened.
std::string wait_for(pid_t pid, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      break;
    }
    if (r < 0 && errno != EINTR) {
      return fmt::format("waitpid: {}", std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return fmt::format("it ran past {} s and was killed", timeout.count());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    return "";
  }
  return WIFEXITED(status) ? fmt::format("it exited with status {}", WEXITSTATUS(status))
                           : fmt::format("it died of signal {}", WTERMSIG(status));
}

Json run_step(const CodeQualityStep& step, const fs::path& in, const fs::path& out,
              const fs::path& log) {
  auto started = spawn_step(step, in, out, log);
  if (const auto* error = std::get_if<std::string>(&started)) {
    return failed(*error);
  }
  std::string problem = wait_for(std::get<pid_t>(started), step.timeout);
  if (!problem.empty()) {
    return failed(fmt::format("python -m kbx_worker.code_quality: {}; its output: {}", problem,
                              read_file_tail(log, 600)));
  }
  Json reply = Json::parse(read_file(out), nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) {
    return failed("its reply is not a JSON object");
  }
  return reply;
}

}  // namespace

Json measure_code_quality(const CodeQualityStep& step, const report::ReportModel& model) {
  Json sources = Json::object();
  for (const auto& row : model.rows) {
    sources[row.submission_id] = row.code;
  }
  std::string pattern = (fs::temp_directory_path() / "kbx-code-quality-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return failed(fmt::format("cannot create a folder under {}: {}",
                              fs::temp_directory_path().string(), std::strerror(errno)));
  }
  fs::path scratch = pattern;
  Json reply;
  try {
    write_file_atomic(scratch / "in.json", Json{{"sources", sources}}.dump(
                                               -1, ' ', false, Json::error_handler_t::replace));
    reply = run_step(step, scratch / "in.json", scratch / "out.json", scratch / "log.txt");
  } catch (const std::exception& e) {
    reply = failed(e.what());
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return reply;
}

}  // namespace kbx::run
