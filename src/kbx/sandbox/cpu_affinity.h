// CPU affinity for timed processes: `--timing-cpus` pins the process being timed to a fixed set of
// CPUs for the length of its time request, so that every candidate and reference is timed on the
// same CPUs (session 31 on an H200: calls that block the host ran 1.2-1.5x slower in some
// processes than in others, steadily for the whole process).
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
