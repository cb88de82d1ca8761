// The processes a candidate worker started, found through the pids cgroup it joined at its start
// (python/kbx_worker/sandbox.py, `_join_pids_cgroup`): a child that called setsid has left the
// worker's process group, but not its cgroup (Landlock keeps the cgroup files out of its reach).
#pragma once

#include <filesystem>
#include <vector>

namespace kbx::sandbox {

/// Where worker `pid`'s pids cgroup lives (`kbx-w<pid>` under the v1 pids hierarchy, or under the
/// v2 root where it enables pids), as sandbox.py `pids_cgroup_of` names it; an empty path where
/// there is no such cgroup (kbx not root, no pids controller).
std::filesystem::path pids_cgroup_of(int pid,
                                     const std::filesystem::path& root = "/sys/fs/cgroup");

/// The processes in worker `pid`'s pids cgroup now (its cgroup.procs, the worker among them);
/// empty when it has none.
std::vector<int> candidate_processes(int pid,
                                     const std::filesystem::path& root = "/sys/fs/cgroup");

/// Those of `pids` that have a GPU device mapped (/dev/nvidiactl, /dev/nvidia-uvm or
/// /dev/nvidia<N> in /proc/<pid>/maps) or /dev/nvidia-uvm open (/proc/<pid>/fd): a process that
/// initialised CUDA. A process that is gone, or whose entries cannot be read, is not one.
std::vector<int> gpu_mapping_processes(const std::vector<int>& pids,
                                       const std::filesystem::path& proc = "/proc");

}  // namespace kbx::sandbox
