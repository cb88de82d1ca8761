// The processes a candidate started, by its pids cgroup, and which of them hold a CUDA context.
#include "kbx/sandbox/candidate_processes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kbx::sandbox {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() / (name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(PidsCgroupOf, NamesTheWorkersCgroupWhereThePythonSideMadeIt) {
  TempDir v1("kbx-cg-v1");
  write(v1.path() / "pids" / "cgroup.procs", "");
  EXPECT_EQ(pids_cgroup_of(42, v1.path()), v1.path() / "pids" / "kbx-w42");

  TempDir v2("kbx-cg-v2");
  write(v2.path() / "cgroup.procs", "");
  write(v2.path() / "cgroup.subtree_control", "cpu io\n");
  EXPECT_EQ(pids_cgroup_of(42, v2.path()), fs::path());  // no pids controller below the root
  write(v2.path() / "cgroup.subtree_control", "cpu pids memory\n");
  EXPECT_EQ(pids_cgroup_of(42, v2.path()), v2.path() / "kbx-w42");

  TempDir none("kbx-cg-none");
  EXPECT_EQ(pids_cgroup_of(42, none.path()), fs::path());
  EXPECT_TRUE(cgroup_processes(42, none.path()).empty());
}

TEST(CgroupProcesses, AreTheMembersOfTheWorkersCgroup) {
  TempDir root("kbx-cg-members");
  write(root.path() / "pids" / "cgroup.procs", "");
  write(root.path() / "pids" / "kbx-w42" / "cgroup.procs", "42\n77\n78\n");
  EXPECT_EQ(cgroup_processes(42, root.path()), (std::vector<int>{42, 77, 78}));
  EXPECT_TRUE(cgroup_processes(43, root.path()).empty());  // gone, or never made
  EXPECT_TRUE(cgroup_processes(0, root.path()).empty());
}

TEST(GpuMappingProcesses, AreThoseWithAGpuDeviceMapped) {
  TempDir proc("kbx-proc");
  const std::string plain =
      "7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 /usr/lib/libc.so.6\n"
      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
  write(proc.path() / "10" / "maps", plain);
  write(proc.path() / "11" / "maps",
        plain + "7f1000000000-7f1000200000 rw-s 00000000 00:05 9 /dev/nvidia0\n");
  write(proc.path() / "12" / "maps", "200000000-200200000 rw-s 00000000 00:05 7 /dev/nvidiactl\n");
  write(proc.path() / "13" / "maps",
        plain + "7f2000000000-7f2000001000 rw-s 00000000 00:05 8 /dev/nvidia-uvm\n");
  // Not a CUDA context: other device nodes whose names only begin alike, a file named so elsewhere.
  write(proc.path() / "14" / "maps",
        "7f3000000000-7f3000001000 rw-s 00000000 00:05 3 /dev/nvidia-uvm-tools\n"
        "7f3000002000-7f3000003000 r--s 00000000 00:05 4 /dev/nvidia-caps/nvidia-cap1\n"
        "7f3000004000-7f3000005000 r--p 00000000 08:01 5 /tmp/dev/nvidia0\n");
  // Nothing mapped, but CUDA's unified-memory device open (a descriptor's link).
  write(proc.path() / "16" / "maps", plain);
  fs::create_directories(proc.path() / "16" / "fd");
  fs::create_symlink("/dev/null", proc.path() / "16" / "fd" / "0");
  fs::create_symlink("/dev/nvidia-uvm", proc.path() / "16" / "fd" / "7");
  fs::create_directories(proc.path() / "17" / "fd");  // only NVML's control device open
  fs::create_symlink("/dev/nvidiactl", proc.path() / "17" / "fd" / "3");
  EXPECT_EQ(gpu_mapping_processes({10, 11, 12, 13, 14, 15, 16, 17}, proc.path()),
            (std::vector<int>{11, 12, 13, 16}));  // 15: gone
  EXPECT_TRUE(gpu_mapping_processes({}, proc.path()).empty());
}

void status(const fs::path& proc, int pid, int uid, int ppid = 1) {
  write(proc / std::to_string(pid) / "status",
        "Name:\tpython3\nState:\tS (sleeping)\nPPid:\t" + std::to_string(ppid) + "\nUid:\t" +
            std::to_string(uid) + "\t" + std::to_string(uid) + "\t" + std::to_string(uid) + "\t" +
            std::to_string(uid) + "\nGid:\t0\t0\t0\t0\n");
}

TEST(CandidateProcesses, AreThoseOfTheWorkersOwnUidAndCgroup) {
  TempDir proc("kbx-proc-uids");
  status(proc.path(), 1, 0);
  status(proc.path(), 100, 0);          // kbx
  status(proc.path(), 200, 2000001, 90);  // a worker under a uid of its own (zygote 90)
  status(proc.path(), 201, 2000001);      // a process it started, in a session of its own
  status(proc.path(), 202, 2000001, 200);  // one still its child
  status(proc.path(), 203, 2000001, 90);  // a worker of an earlier turn of the uid block
  status(proc.path(), 300, 2000002);    // another worker
  status(proc.path(), 400, 1000);       // a worker that kept kbx's uid (kbx not root)
  status(proc.path(), 401, 1000);
  write(proc.path() / "self" / "status", "Uid:\t0\t0\t0\t0\n");  // not a process number
  EXPECT_EQ(process_uid(201, proc.path()), 2000001U);
  EXPECT_EQ(process_uid(999, proc.path()), std::nullopt);
  EXPECT_EQ(parent_pid(202, proc.path()), 200);
  EXPECT_EQ(parent_pid(999, proc.path()), std::nullopt);
  EXPECT_TRUE(under_own_uid(200, 0, proc.path()));
  EXPECT_FALSE(under_own_uid(400, 1000, proc.path()));  // kbx's uid
  EXPECT_FALSE(under_own_uid(100, 1000, proc.path()));  // root's
  EXPECT_FALSE(under_own_uid(999, 0, proc.path()));     // gone
  auto by_uid = processes_by_uid(proc.path());
  EXPECT_EQ(by_uid.at(2000001), (std::vector<int>{200, 201, 202, 203}));
  EXPECT_EQ(by_uid.at(0), (std::vector<int>{1, 100}));
  TempDir cgroups("kbx-cg-none-uids");
  EXPECT_EQ(candidate_processes(200, by_uid, 0, cgroups.path(), proc.path()),
            (std::vector<int>{200, 201, 202}));
  EXPECT_EQ(candidate_processes(300, by_uid, 0, cgroups.path(), proc.path()),
            (std::vector<int>{300}));
  // kbx's own uid (or root's) says nothing about whose process it is: the cgroup alone does.
  EXPECT_TRUE(candidate_processes(400, by_uid, 1000, cgroups.path(), proc.path()).empty());
  EXPECT_TRUE(candidate_processes(100, by_uid, 1000, cgroups.path(), proc.path()).empty());
  write(cgroups.path() / "pids" / "cgroup.procs", "");
  write(cgroups.path() / "pids" / "kbx-w400" / "cgroup.procs", "400\n401\n");
  EXPECT_EQ(candidate_processes(400, by_uid, 1000, cgroups.path(), proc.path()),
            (std::vector<int>{400, 401}));
}

TEST(GpuMappingProcesses, ThisTestProcessHoldsNoGpu) {
  // The real /proc: a process without CUDA maps no GPU device.
  EXPECT_TRUE(gpu_mapping_processes({getpid()}).empty());
}

}  // namespace
}  // namespace kbx::sandbox
