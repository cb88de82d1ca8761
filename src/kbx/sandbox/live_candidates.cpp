// LiveCandidates: SIGSTOP / SIGCONT of candidate process groups around exclusive timing.
#include "kbx/sandbox/live_candidates.h"

#include <signal.h>

namespace kbx::sandbox {

void LiveCandidates::add(int pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  pids_.insert(pid);
}

void LiveCandidates::remove(int pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  pids_.erase(pid);
}

LiveCandidates::Freeze LiveCandidates::freeze_others(int self) {
  std::vector<int> stopped;
  std::lock_guard<std::mutex> lock(mutex_);
  for (int pid : pids_) {
    if (pid != self && pid > 0 && kill(-pid, SIGSTOP) == 0) {
      stopped.push_back(pid);
    }
  }
  return Freeze(std::move(stopped));
}

LiveCandidates::Freeze::~Freeze() {
  for (int pid : stopped_) {
    kill(-pid, SIGCONT);
  }
}

}  // namespace kbx::sandbox
