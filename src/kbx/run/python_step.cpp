// run_python_step: posix_spawn of `python -m kbx_worker.<module>`, a deadline, and what happened.
#include "kbx/run/python_step.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <variant>

#include "kbx/common/files.h"

extern char** environ;

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

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

int open_output(const fs::path& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// Starts the step; the pid, or an error message.
std::variant<pid_t, std::string> spawn_step(const PythonStep& step, const std::string& module,
                                            const std::vector<std::string>& extra,
                                            const fs::path& out, const fs::path& log) {
  int out_fd = open_output(out);
  if (out_fd < 0) {
    return fmt::format("cannot open {}: {}", out.string(), std::strerror(errno));
  }
  int log_fd = out == log ? out_fd : open_output(log);
  if (log_fd < 0) {
    close(out_fd);
    return fmt::format("cannot open {}: {}", log.string(), std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  std::vector<std::string> args{step.python, "-m", module};
  args.insert(args.end(), extra.begin(), extra.end());
  auto env = step_environment(step.worker_path);
  auto argv = pointers(args);
  auto envp = pointers(env);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, step.python.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_fd);
  if (log_fd != out_fd) {
    close(log_fd);
  }
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

}  // namespace

std::string run_python_step(const PythonStep& step, const std::string& module,
                            const std::vector<std::string>& args, const fs::path& stdout_path,
                            const fs::path& log_path) {
  auto started = spawn_step(step, module, args, stdout_path, log_path);
  if (const auto* error = std::get_if<std::string>(&started)) {
    return *error;
  }
  std::string problem = wait_for(std::get<pid_t>(started), step.timeout);
  if (problem.empty()) {
    return "";
  }
  return fmt::format("{}; its output: {}", problem, read_file_tail(log_path, 600));
}

}  // namespace kbx::run
