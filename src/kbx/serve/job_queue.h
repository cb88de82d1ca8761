// JobQueue: the bounded queue between HTTP handlers and evaluation threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace kbx::serve {

/// A FIFO of jobs with a fixed capacity: try_push refuses (false) when `capacity` jobs are
/// waiting, so the server can answer 429 at once instead of piling work up. Jobs being run do not
/// count. Thread-safe.
class JobQueue {
 public:
  using Job = std::function<void()>;

  explicit JobQueue(std::size_t capacity) : capacity_(capacity) {}

  /// Adds `job` unless the queue is full or closed; true when added.
  [[nodiscard]] bool try_push(Job job);
  /// Waits for a job; nullopt once the queue is closed and empty.
  std::optional<Job> pop();
  /// Wakes every pop(); try_push refuses from now on. Jobs still queued are still handed out.
  void close();

  /// Jobs waiting (not those being run).
  [[nodiscard]] std::size_t depth() const;
  /// The most jobs that may wait.
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool closed_ = false;
};

}  // namespace kbx::serve
