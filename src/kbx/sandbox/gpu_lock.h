// GpuLock: correctness work shares a GPU; timing has it alone (writer-preferring shared lock).
#pragma once

#include <condition_variable>
#include <mutex>

namespace kbx::sandbox {

/// Many holders may run test cases on a GPU at once (shared); a timing run waits until they are
/// done and keeps new ones out until it finishes (exclusive), so no other process's kernels run
/// between a sample's start and end events. A waiting exclusive holder blocks new shared ones.
/// Starting a worker (fork, confinement, CUDA context) takes a shared hold where
/// PoolConfig::start_hold is on (the default; `kbx eval --worker-start-hold none` turns it off):
/// a context being created beside a timing run slows large workloads' samples (docs/perf.md,
/// session 35). Not recursive: a thread holding it shared must not take it again.
class GpuLock {
 public:
  void lock_shared();
  void unlock_shared();
  void lock();
  void unlock();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int shared_ = 0;
  int exclusive_waiting_ = 0;
  bool exclusive_ = false;
};

/// RAII holders.
class SharedGpuHold {
 public:
  explicit SharedGpuHold(GpuLock& lock) : lock_(lock) { lock_.lock_shared(); }
  ~SharedGpuHold() { lock_.unlock_shared(); }
  SharedGpuHold(const SharedGpuHold&) = delete;
  SharedGpuHold& operator=(const SharedGpuHold&) = delete;

 private:
  GpuLock& lock_;
};

class ExclusiveGpuHold {
 public:
  explicit ExclusiveGpuHold(GpuLock& lock) : lock_(lock) { lock_.lock(); }
  ~ExclusiveGpuHold() { lock_.unlock(); }
  ExclusiveGpuHold(const ExclusiveGpuHold&) = delete;
  ExclusiveGpuHold& operator=(const ExclusiveGpuHold&) = delete;

 private:
  GpuLock& lock_;
};

}  // namespace kbx::sandbox
