// Trusted Python steps: `python -m kbx_worker.<module> ARGS...` in a process of its own, with a
// deadline (code quality, device ceilings). Never used for candidate code: workers do that.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace kbx::run {

/// Where and how to run a module of the kbx_worker package.
struct PythonStep {
  std::string python = "python3";
  std::filesystem::path worker_path;  ///< the folder holding the kbx_worker package (PYTHONPATH)
  std::chrono::seconds timeout{120};
};

/// Runs `python -m module args...` with stdin from /dev/null, stdout to `stdout_path` and stderr
/// to `log_path` (the same file when they are equal), killing it past the step's timeout.
/// Returns "" when it exited 0, else what happened ("it exited with status 1; its output: ...",
/// "cannot start 'python3': ..."). Never throws for the step's own failures.
std::string run_python_step(const PythonStep& step, const std::string& module,
                            const std::vector<std::string>& args,
                            const std::filesystem::path& stdout_path,
                            const std::filesystem::path& log_path);

}  // namespace kbx::run
