// Worker: kbx's end of one kbx_worker child process (a socket, a pid, a log file).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "kbx/common/json.h"
#include "kbx/sandbox/protocol.h"

namespace kbx::sandbox {

using Clock = std::chrono::steady_clock;

/// What kind of child to make (the fork message of docs/worker-protocol.md).
struct WorkerSpec {
  std::string role = "candidate";  ///< "candidate" (one submission, then killed) or "reference"
  std::string device = "cpu";      ///< "cuda" or "cpu"
  int gpu = 0;                     ///< CUDA device index when device == "cuda"
  std::filesystem::path log_path;  ///< the child's stdout and stderr go here
  int threads = 1;                 ///< torch intra-op threads
  /// The fork request's `sandbox` object (docs/security.md): null runs the worker unconfined,
  /// which only the trusted reference worker is.
  Json sandbox;
};

/// The result of waiting for one frame: the frame, or why none came.
struct Reply {
  std::optional<Frame> frame;
  ReadFailure failure = ReadFailure::timeout;
  std::string error;  ///< protocol error text, if any

  [[nodiscard]] bool ok() const { return frame.has_value(); }
};

/// A child process speaking the worker protocol. Owns the socket; kills the process group on
/// destruction. Not thread-safe: one thread drives a worker at a time.
class Worker {
 public:
  Worker(int fd, int pid, WorkerSpec spec);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Waits for the child's "ready" frame; keeps its device description.
  Reply wait_ready(Clock::time_point deadline);
  /// Sends a request and waits for its one reply.
  Reply request(const Frame& frame, Clock::time_point deadline);
  /// SIGKILLs the child's process group (it called setsid) and closes the socket.
  void kill();

  [[nodiscard]] int pid() const { return pid_; }
  [[nodiscard]] const WorkerSpec& spec() const { return spec_; }
  /// The "ready" header (device description, warm_ms).
  [[nodiscard]] const Json& ready_info() const { return ready_; }
  /// The last `max_bytes` of the child's log file.
  [[nodiscard]] std::string log_tail(std::size_t max_bytes = 4096) const;

 private:
  int fd_;
  int pid_;
  WorkerSpec spec_;
  FrameReader reader_;
  Json ready_ = Json::object();
  bool killed_ = false;
};

}  // namespace kbx::sandbox
