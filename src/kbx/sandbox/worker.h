// Worker: kbx's end of one kbx_worker child process (a socket, a pid, a log file).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
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
  /// The child asks for the GPU lock around its CUDA context's creation ("hold" / "unhold"
  /// frames before "ready"; Worker::wait_ready answers them through a ContextHold).
  bool context_hold = false;
};

/// How wait_ready answers a starting child's "hold" (take the GPU lock shared; may block; "held"
/// is sent once it returns) and "unhold" (give it back). The caller owns the hold and gives it
/// back itself if the start fails between the two.
struct ContextHold {
  std::function<void()> take;
  std::function<void()> give;
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

  /// Waits for the child's "ready" frame; keeps its device description. With `hold`, answers the
  /// child's "hold" and "unhold" frames on the way (WorkerSpec::context_hold); the time spent
  /// waiting for the hold moves the deadline, since the child waits for kbx then. Without it,
  /// such a frame is a protocol error.
  Reply wait_ready(Clock::time_point deadline, const ContextHold* hold = nullptr);
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
