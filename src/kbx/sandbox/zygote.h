// Zygote: the Python process that imports torch and Triton once and forks warm workers.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/sandbox/worker.h"

namespace kbx::sandbox {

/// How to start the zygote.
struct ZygoteConfig {
  std::string python = "python3";          ///< interpreter with torch and triton
  std::filesystem::path worker_path;       ///< folder holding the kbx_worker package
  std::filesystem::path log_path;          ///< the zygote's own stdout/stderr
  std::vector<std::pair<std::string, std::string>> env;  ///< extra environment (TRITON_INTERPRET, ...)
  std::chrono::seconds start_timeout{180};
};

/// How a child ended, as the zygote reported it.
struct ExitStatus {
  std::optional<int> exit_code;
  std::optional<int> signal;
};

/// "SIGSEGV" for 11, "signal 99" for unknown numbers.
std::string signal_name(int signal);

/// Owns the zygote process and its control socket. fork_worker() is thread-safe.
class Zygote {
 public:
  /// Starts the zygote and waits for its hello. Throws Error(worker) with the log's tail if it
  /// does not come up (no interpreter, no torch, ...).
  static std::unique_ptr<Zygote> start(const ZygoteConfig& config);
  ~Zygote();
  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;

  /// The hello's env: python, torch, triton versions, ...
  [[nodiscard]] const Json& env() const { return env_; }

  /// Forks a worker (not yet ready: call Worker::wait_ready). Throws Error(worker) if the zygote
  /// is gone.
  std::unique_ptr<Worker> fork_worker(const WorkerSpec& spec);

  /// The exit status of a child once reported, waiting up to `wait`.
  std::optional<ExitStatus> exit_status(int pid, std::chrono::milliseconds wait);

  [[nodiscard]] bool alive();

 private:
  Zygote() = default;
  void reader_loop();
  std::string log_tail() const;

  ZygoteConfig config_;
  pid_t pid_ = -1;
  int control_fd_ = -1;
  Json env_ = Json::object();
  std::thread reader_;
  std::mutex mutex_;
  std::mutex write_mutex_;
  std::condition_variable changed_;
  std::map<int, int> forked_;            // fork id -> pid
  std::map<int, ExitStatus> exited_;     // pid -> status
  int next_id_ = 1;
  bool dead_ = false;
  FrameReader reader_state_;
};

}  // namespace kbx::sandbox
