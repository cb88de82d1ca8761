// LiveCandidates: SIGSTOP / SIGCONT of candidate process groups around exclusive timing.
#include "kbx/sandbox/live_candidates.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "kbx/sandbox/candidate_processes.h"

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
  std::vector<int> groups;
  std::vector<int> processes;
  std::lock_guard<std::mutex> lock(mutex_);
  for (int pid : pids_) {
    if (pid != self && pid > 0 && kill(-pid, SIGSTOP) == 0) {
      groups.push_back(pid);
    }
  }
  // The processes the stopped candidates started outside their groups: a stopped process forks
  // no more, so a few passes find every one that was forking meanwhile.
  const uid_t own = geteuid();
  const bool own_uids = std::any_of(groups.begin(), groups.end(),
                                    [&](int pid) { return under_own_uid(pid, own, proc_); });
  for (int pass = 0; pass < 4 && !groups.empty(); ++pass) {
    bool more = false;
    // One pass over /proc only where a worker runs under a uid of its own (kbx as root).
    auto by_uid = own_uids ? processes_by_uid(proc_) : std::map<uid_t, std::vector<int>>{};
    for (int pid : groups) {
      for (int member : candidate_processes(pid, by_uid, own, cgroup_root_, proc_)) {
        if (std::find(processes.begin(), processes.end(), member) == processes.end() &&
            kill(member, SIGSTOP) == 0) {
          processes.push_back(member);
          more = true;
        }
      }
    }
    if (!more) {
      break;
    }
  }
  return Freeze(std::move(groups), std::move(processes));
}

LiveCandidates::Freeze::~Freeze() {
  for (int pid : groups_) {
    kill(-pid, SIGCONT);
  }
  for (int pid : processes_) {
    kill(pid, SIGCONT);
  }
}

void StartingWorkers::add(int pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  pids_.insert(pid);
  if (depth_ > 0 && !released_) {  // started while the host is kept quiet: it waits too
    stop(pid);
  }
}

void StartingWorkers::remove(int pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  pids_.erase(pid);
}

void StartingWorkers::stop(int pid) {
  if (pid <= 0) {
    return;
  }
  bool group = kill(-pid, SIGSTOP) == 0;  // its group once it has called setsid
  if (kill(pid, SIGSTOP) == 0 || group) {
    stopped_.insert(pid);
  }
}

StartingWorkers::Quiet StartingWorkers::quiet() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (depth_++ == 0) {
    for (int pid : pids_) {
      stop(pid);
    }
  }
  return Quiet(this);
}

void StartingWorkers::resume_all() {
  for (int pid : stopped_) {
    kill(-pid, SIGCONT);
    kill(pid, SIGCONT);
  }
  stopped_.clear();
}

void StartingWorkers::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (depth_ > 0) {
    released_ = true;
    resume_all();
  }
}

std::size_t StartingWorkers::stopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopped_.size();
}

StartingWorkers::Quiet::~Quiet() {
  if (owner_ == nullptr) {
    return;
  }
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  if (--owner_->depth_ == 0) {
    owner_->resume_all();
    owner_->released_ = false;
  }
}

}  // namespace kbx::sandbox
