// The processes a candidate worker started, whatever process group or session they moved to:
// when kbx runs as root each worker runs under a uid of its own (python/kbx_worker/sandbox.py,
// `_drop_identity`; WorkerPool gives each its own), which no process of it can leave; otherwise,
// as root, it joins a pids cgroup of its own (`_join_pids_cgroup`), whose files Landlock keeps out
// of its reach.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace kbx::sandbox {

/// The real uid of process `pid` (the Uid line of /proc/<pid>/status); nullopt when it is gone.
std::optional<uid_t> process_uid(int pid, const std::filesystem::path& proc = "/proc");

/// The parent of process `pid` (the PPid line of /proc/<pid>/status); nullopt when it is gone.
std::optional<int> parent_pid(int pid, const std::filesystem::path& proc = "/proc");

/// Whether worker `pid` runs under a uid of its own: neither `own_uid` (kbx's: a worker that kept
/// it shares it with every process of kbx) nor root's. Only then does its uid tell its processes.
bool under_own_uid(int pid, uid_t own_uid, const std::filesystem::path& proc = "/proc");

/// Every process now, by real uid (one pass over /proc).
std::map<uid_t, std::vector<int>> processes_by_uid(const std::filesystem::path& proc = "/proc");

/// The processes of candidate worker `pid`: those of its uid where it runs under_own_uid, but
/// other workers (children of its parent, the zygote), with `by_uid` from processes_by_uid (only
/// read then), and those in its pids cgroup under `cgroup_root`. The worker among them.
std::vector<int> candidate_processes(int pid, const std::map<uid_t, std::vector<int>>& by_uid,
                                     uid_t own_uid,
                                     const std::filesystem::path& cgroup_root = "/sys/fs/cgroup",
                                     const std::filesystem::path& proc = "/proc");

/// Where worker `pid`'s pids cgroup lives (`kbx-w<pid>` under the v1 pids hierarchy, or under the
/// v2 root where it enables pids), as sandbox.py `pids_cgroup_of` names it; an empty path where
/// there is no such cgroup (kbx not root, no pids controller).
std::filesystem::path pids_cgroup_of(int pid,
                                     const std::filesystem::path& root = "/sys/fs/cgroup");

/// The processes in worker `pid`'s pids cgroup now (its cgroup.procs, the worker among them);
/// empty when it has none.
std::vector<int> cgroup_processes(int pid, const std::filesystem::path& root = "/sys/fs/cgroup");

/// Those of `pids` that have a GPU device mapped (/dev/nvidiactl, /dev/nvidia-uvm or
/// /dev/nvidia<N> in /proc/<pid>/maps) or /dev/nvidia-uvm open (/proc/<pid>/fd): a process that
/// initialised CUDA. A process that is gone, or whose entries cannot be read, is not one.
std::vector<int> gpu_mapping_processes(const std::vector<int>& pids,
                                       const std::filesystem::path& proc = "/proc");

}  // namespace kbx::sandbox
