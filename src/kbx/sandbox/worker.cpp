// Worker: request/reply over the child's socket, and killing it.
#include "kbx/sandbox/worker.h"

#include <signal.h>
#include <unistd.h>

#include "kbx/common/files.h"

namespace kbx::sandbox {

Worker::Worker(int fd, int pid, WorkerSpec spec) : fd_(fd), pid_(pid), spec_(std::move(spec)) {}

Worker::~Worker() { kill(); }

Reply Worker::wait_ready(Clock::time_point deadline, const ContextHold* hold) {
  Reply r;
  while (true) {
    r.frame = read_frame(fd_, reader_, deadline, r.failure, r.error);
    if (!r.frame) {
      return r;
    }
    const std::string op = r.frame->op();
    if (hold != nullptr && op == "hold") {
      auto asked = Clock::now();
      hold->take();
      deadline += Clock::now() - asked;
      if (!write_frame(fd_, Frame{Json{{"op", "held"}}, {}})) {
        r.frame.reset();
        r.failure = ReadFailure::closed;
        return r;
      }
      continue;
    }
    if (hold != nullptr && op == "unhold") {
      hold->give();
      continue;
    }
    if (op != "ready") {
      r.error = "expected 'ready', got '" + op + "'";
      r.failure = ReadFailure::protocol;
      r.frame.reset();
      return r;
    }
    ready_ = r.frame->header;
    return r;
  }
}

Reply Worker::request(const Frame& frame, Clock::time_point deadline) {
  Reply r;
  if (killed_ || !write_frame(fd_, frame)) {
    r.failure = ReadFailure::closed;
    return r;
  }
  r.frame = read_frame(fd_, reader_, deadline, r.failure, r.error);
  return r;
}

void Worker::kill() {
  if (killed_) {
    return;
  }
  killed_ = true;
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the child is a process-group leader (setsid)
    ::kill(pid_, SIGKILL);   // in case it died before setsid
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

std::string Worker::log_tail(std::size_t max_bytes) const {
  return read_file_tail(spec_.log_path, max_bytes);
}

}  // namespace kbx::sandbox
