// Candidate processes by uid and pids cgroup, and which of them hold a CUDA context.
#include "kbx/sandbox/candidate_processes.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace kbx::sandbox {

namespace fs = std::filesystem;

namespace {

bool v2_enables_pids(const fs::path& root) {
  std::ifstream f(root / "cgroup.subtree_control");
  std::string word;
  while (f >> word) {
    if (word == "pids") {
      return true;
    }
  }
  return false;
}

/// A mapped file that is a GPU device node: /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia<N>.
bool is_gpu_device(const std::string& path) {
  static const std::string prefix = "/dev/nvidia";
  if (path.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  std::string rest = path.substr(prefix.size());
  if (rest == "ctl" || rest == "-uvm") {
    return true;
  }
  if (rest.empty()) {
    return false;
  }
  for (char c : rest) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

bool maps_gpu_device(const fs::path& dir) {
  std::ifstream f(dir / "maps");
  std::string line;
  while (std::getline(f, line)) {
    // address perms offset dev inode path: the path is the sixth field, when there is one.
    std::istringstream fields(line);
    std::string skip;
    std::string path;
    for (int i = 0; i < 5 && fields >> skip; ++i) {
    }
    if (fields >> path && is_gpu_device(path)) {
      return true;
    }
  }
  return false;
}

/// CUDA's driver opens the unified-memory device when it initialises (NVML's queries do not).
bool opened_uvm(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir / "fd", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code link_ec;
    fs::path target = fs::read_symlink(it->path(), link_ec);
    if (!link_ec && target == "/dev/nvidia-uvm") {
      return true;
    }
  }
  return false;
}

/// The first number on the `key` line of /proc/<pid>/status ("Uid:", "PPid:").
std::optional<long long> status_field(int pid, const fs::path& proc, const std::string& key) {
  std::ifstream f(proc / std::to_string(pid) / "status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size(), key) == 0) {
      std::istringstream fields(line.substr(key.size()));
      long long value = -1;
      if (fields >> value && value >= 0) {
        return value;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

fs::path pids_cgroup_of(int pid, const fs::path& root) {
  std::error_code ec;
  const std::string name = "kbx-w" + std::to_string(pid);
  if (fs::exists(root / "pids" / "cgroup.procs", ec)) {
    return root / "pids" / name;
  }
  if (fs::exists(root / "cgroup.procs", ec) && v2_enables_pids(root)) {
    return root / name;
  }
  return {};
}

std::vector<int> cgroup_processes(int pid, const fs::path& root) {
  std::vector<int> pids;
  fs::path cgroup = pids_cgroup_of(pid, root);
  if (pid <= 0 || cgroup.empty()) {
    return pids;
  }
  std::ifstream f(cgroup / "cgroup.procs");
  int member = 0;
  while (f >> member) {
    if (member > 0) {
      pids.push_back(member);
    }
  }
  return pids;
}

std::optional<uid_t> process_uid(int pid, const fs::path& proc) {
  auto uid = status_field(pid, proc, "Uid:");
  return uid ? std::optional<uid_t>(static_cast<uid_t>(*uid)) : std::nullopt;
}

std::optional<int> parent_pid(int pid, const fs::path& proc) {
  auto ppid = status_field(pid, proc, "PPid:");
  return ppid ? std::optional<int>(static_cast<int>(*ppid)) : std::nullopt;
}

bool under_own_uid(int pid, uid_t own_uid, const fs::path& proc) {
  auto uid = pid > 0 ? process_uid(pid, proc) : std::nullopt;
  return uid && *uid != own_uid && *uid != 0;
}

std::map<uid_t, std::vector<int>> processes_by_uid(const fs::path& proc) {
  std::map<uid_t, std::vector<int>> by_uid;
  std::error_code ec;
  for (fs::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    int pid = std::stoi(name);
    if (auto uid = process_uid(pid, proc)) {
      by_uid[*uid].push_back(pid);
    }
  }
  for (auto& [uid, pids] : by_uid) {
    std::sort(pids.begin(), pids.end());
  }
  return by_uid;
}

std::vector<int> candidate_processes(int pid, const std::map<uid_t, std::vector<int>>& by_uid,
                                     uid_t own_uid, const fs::path& cgroup_root,
                                     const fs::path& proc) {
  std::vector<int> pids = cgroup_processes(pid, cgroup_root);
  if (under_own_uid(pid, own_uid, proc)) {
    auto it = by_uid.find(*process_uid(pid, proc));
    // Another child of the worker's parent (the zygote) is another worker, never this one's: a
    // worker of an earlier turn of the uid block that still lives (sandbox_uid).
    auto zygote = parent_pid(pid, proc);
    if (it != by_uid.end()) {
      for (int member : it->second) {
        if (member != pid && zygote && parent_pid(member, proc) == zygote) {
          continue;
        }
        if (std::find(pids.begin(), pids.end(), member) == pids.end()) {
          pids.push_back(member);
        }
      }
    }
  }
  return pids;
}

std::vector<int> gpu_mapping_processes(const std::vector<int>& pids, const fs::path& proc) {
  std::vector<int> holders;
  for (int pid : pids) {
    fs::path dir = proc / std::to_string(pid);
    if (maps_gpu_device(dir) || opened_uvm(dir)) {
      holders.push_back(pid);
    }
  }
  return holders;
}

}  // namespace kbx::sandbox
