// JobQueue: a mutex, a condition variable and a deque.
#include "kbx/serve/job_queue.h"

namespace kbx::serve {

bool JobQueue::try_push(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ || jobs_.size() >= capacity_) {
      return false;
    }
    jobs_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

std::optional<JobQueue::Job> JobQueue::pop() {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait(lock, [this] { return closed_ || !jobs_.empty(); });
  if (jobs_.empty()) {
    return std::nullopt;
  }
  Job job = std::move(jobs_.front());
  jobs_.pop_front();
  return job;
}

void JobQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

std::size_t JobQueue::depth() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size();
}

}  // namespace kbx::serve
