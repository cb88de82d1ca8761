// CPU affinity for timed processes: `--timing-cpus LIST` pins the process being timed to a fixed
// set of CPUs for the length of its time request. Session 32 found the slow spells of calls that
// include host work follow the CPU and the moment, not the process, and a fixed list of four CPUs
// no steadier than none; `--timing-cpus fast` (python/kbx_worker/host_cpus.py) has the worker
// choose the fastest CPUs at the time instead.
#pragma once

#include <sched.h>

#include <string>
#include <utility>
#include <vector>

#include "kbx/common/result.h"

namespace kbx::sandbox {

/// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11} (sorted, without repeats). Every CPU must be one this
/// process may run on (sched_getaffinity); the error names the list, the CPU and the ones allowed.
Result<std::vector<int>> parse_cpu_list(const std::string& text);

/// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus();

/// Pins every thread of process `pid` to `cpus` while it lives, then gives each thread the
/// affinity it had (a thread started meanwhile gets the one the process's first thread had). An
/// empty `cpus` does nothing. Failures (a thread that ended, a process that is gone) are skipped:
/// pinning steadies timing, it judges nothing.
class PinnedCpus {
 public:
  PinnedCpus(int pid, const std::vector<int>& cpus);
  ~PinnedCpus();
  PinnedCpus(const PinnedCpus&) = delete;
  PinnedCpus& operator=(const PinnedCpus&) = delete;

 private:
  int pid_ = 0;
  std::vector<std::pair<int, cpu_set_t>> saved_;  ///< each thread's affinity before
};

}  // namespace kbx::sandbox
