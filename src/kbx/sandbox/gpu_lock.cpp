// GpuLock.
#include "kbx/sandbox/gpu_lock.h"

namespace kbx::sandbox {

void GpuLock::lock_shared() {
  std::unique_lock<std::mutex> l(mutex_);
  changed_.wait(l, [&] { return !exclusive_ && exclusive_waiting_ == 0; });
  ++shared_;
}

void GpuLock::unlock_shared() {
  std::lock_guard<std::mutex> l(mutex_);
  --shared_;
  changed_.notify_all();
}

void GpuLock::lock() {
  std::unique_lock<std::mutex> l(mutex_);
  ++exclusive_waiting_;
  changed_.wait(l, [&] { return !exclusive_ && shared_ == 0; });
  --exclusive_waiting_;
  exclusive_ = true;
}

void GpuLock::unlock() {
  std::lock_guard<std::mutex> l(mutex_);
  exclusive_ = false;
  changed_.notify_all();
}

}  // namespace kbx::sandbox
