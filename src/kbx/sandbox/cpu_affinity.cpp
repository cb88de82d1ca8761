// CPU affinity for timed processes (`--timing-cpus`).
#include "kbx/sandbox/cpu_affinity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "kbx/common/strings.h"

namespace kbx::sandbox {
namespace {

/// The thread ids of process `pid` (/proc/<pid>/task), empty when it is gone.
std::vector<int> threads_of(int pid) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
    int tid = 0;
    if (parse_int(entry.path().filename().string(), tid)) {
      out.push_back(tid);
    }
  }
  return out;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return out;
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      out.push_back(cpu);
    }
  }
  return out;
}

Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::usage,
                 "--timing-cpus '{}': {}; give 'any', 'fast', 'spread', or CPU numbers and ranges like 0-3,8 "
                 "(this process may run on {})",
                 text, why, fmt::join(allowed_cpus(), ","));
  };
  std::vector<int> out;
  for (const auto& part : split(text, ',')) {
    std::string p(trim(part));
    auto dash = p.find('-');
    int first = 0;
    int last = 0;
    bool ok = dash == std::string::npos
                  ? parse_int(p, first) && parse_int(p, last)
                  : parse_int(std::string_view(p).substr(0, dash), first) &&
                        parse_int(std::string_view(p).substr(dash + 1), last);
    if (!ok || last < first || last >= CPU_SETSIZE) {
      return bad(fmt::format("'{}' is not a CPU or a range of CPUs", p));
    }
    for (int cpu = first; cpu <= last; ++cpu) {
      out.push_back(cpu);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) {
    return bad("no CPU named");
  }
  std::vector<int> allowed = allowed_cpus();
  for (int cpu : out) {
    if (!std::binary_search(allowed.begin(), allowed.end(), cpu)) {
      return bad(fmt::format("CPU {} is not one this process may run on", cpu));
    }
  }
  return out;
}

PinnedCpus::PinnedCpus(int pid, const std::vector<int>& cpus) : pid_(pid) {
  if (cpus.empty() || pid <= 0) {
    return;
  }
  cpu_set_t pinned;
  CPU_ZERO(&pinned);
  for (int cpu : cpus) {
    CPU_SET(cpu, &pinned);
  }
  for (int tid : threads_of(pid)) {
    cpu_set_t before;
    CPU_ZERO(&before);
    if (sched_getaffinity(tid, sizeof(before), &before) != 0) {
      continue;  // the thread ended
    }
    if (sched_setaffinity(tid, sizeof(pinned), &pinned) == 0) {
      saved_.emplace_back(tid, before);
    }
  }
}

PinnedCpus::~PinnedCpus() {
  if (saved_.empty()) {
    return;
  }
  // The process's first thread's old affinity, for threads started while pinned.
  cpu_set_t fallback = saved_.front().second;
  for (const auto& [tid, set] : saved_) {
    if (tid == pid_) {
      fallback = set;
    }
  }
  for (int tid : threads_of(pid_)) {
    auto it = std::find_if(saved_.begin(), saved_.end(),
                           [tid = tid](const auto& s) { return s.first == tid; });
    const cpu_set_t& set = it != saved_.end() ? it->second : fallback;
    sched_setaffinity(tid, sizeof(set), &set);
  }
}

}  // namespace kbx::sandbox
