// LiveCandidates: the candidate processes alive in a run, frozen while another one is timed.
// StartingWorkers: the worker processes being started, stopped while a host-bound call is timed.
#pragma once

#include <filesystem>
#include <mutex>
#include <set>
#include <vector>

namespace kbx::sandbox {

/// Process groups of candidate workers that have loaded code (each worker leads its own group).
/// While one candidate is timed under the exclusive GPU lock, every other one is idle (the lock
/// keeps them out of their stages), but a thread or process it started could still launch GPU
/// work or burn CPU; freeze_others() stops them (SIGSTOP) until the returned Freeze ends
/// (SIGCONT): each worker's process group, and every other process of the candidate besides
/// (candidate_processes: its own uid, or its pids cgroup; a child that called setsid left the
/// group, not those). Thread-safe.
class LiveCandidates {
 public:
  /// `cgroup_root`, `proc`: where the workers' pids cgroups and processes are looked up (tests
  /// point them elsewhere).
  explicit LiveCandidates(std::filesystem::path cgroup_root = "/sys/fs/cgroup",
                          std::filesystem::path proc = "/proc")
      : cgroup_root_(std::move(cgroup_root)), proc_(std::move(proc)) {}
  void add(int pid);
  void remove(int pid);

  /// Resumes the processes it stopped when it is destroyed.
  class Freeze {
   public:
    Freeze() = default;
    Freeze(std::vector<int> groups, std::vector<int> processes)
        : groups_(std::move(groups)), processes_(std::move(processes)) {}
    ~Freeze();
    Freeze(Freeze&& other) noexcept
        : groups_(std::move(other.groups_)), processes_(std::move(other.processes_)) {
      other.groups_.clear();
      other.processes_.clear();
    }
    Freeze& operator=(Freeze&&) = delete;
    Freeze(const Freeze&) = delete;
    Freeze& operator=(const Freeze&) = delete;
    /// The candidates stopped (their process groups).
    [[nodiscard]] std::size_t count() const { return groups_.size(); }
    /// Processes stopped one by one: the candidates' own (by uid or cgroup), outside their
    /// groups too.
    [[nodiscard]] const std::vector<int>& processes() const { return processes_; }

   private:
    std::vector<int> groups_;
    std::vector<int> processes_;
  };

  /// Stops every live candidate except `self`.
  Freeze freeze_others(int self);

 private:
  std::filesystem::path cgroup_root_;
  std::filesystem::path proc_;
  std::mutex mutex_;
  std::set<int> pids_;
};

/// Worker processes under way from fork to ready (any role). While a Quiet lives they are
/// stopped (SIGSTOP to the process and to its group: a child calls setsid early in its start),
/// and so is any added meanwhile; the last Quiet to end resumes them all. Thread-safe.
class StartingWorkers {
 public:
  void add(int pid);
  void remove(int pid);

  class Quiet {
   public:
    explicit Quiet(StartingWorkers* owner) : owner_(owner) {}
    ~Quiet();
    Quiet(Quiet&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Quiet& operator=(Quiet&&) = delete;
    Quiet(const Quiet&) = delete;
    Quiet& operator=(const Quiet&) = delete;

   private:
    StartingWorkers* owner_;
  };
  [[nodiscard]] Quiet quiet();
  /// Resumes every start the Quiets alive now stopped, and stops none added until the last of
  /// them ends (a quiet that lasted too long: WorkerPool's watch). No-op without a Quiet.
  void release();
  /// The processes the Quiets alive now have stopped.
  [[nodiscard]] std::size_t stopped();

 private:
  void stop(int pid);  // with mutex_ held
  void resume_all();   // with mutex_ held
  std::mutex mutex_;
  std::set<int> pids_;
  std::set<int> stopped_;
  int depth_ = 0;
  bool released_ = false;
};

}  // namespace kbx::sandbox
