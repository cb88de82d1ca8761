// LiveCandidates: the candidate processes alive in a run, frozen while another one is timed.
#pragma once

#include <mutex>
#include <set>
#include <vector>

namespace kbx::sandbox {

/// Process groups of candidate workers that have loaded code (each worker leads its own group).
/// While one candidate is timed under the exclusive GPU lock, every other one is idle (the lock
/// keeps them out of their stages), but a thread it started could still launch GPU work or burn
/// CPU; freeze_others() stops them (SIGSTOP) until the returned Freeze ends (SIGCONT). Thread-safe.
class LiveCandidates {
 public:
  void add(int pid);
  void remove(int pid);

  /// Resumes the processes it stopped when it is destroyed.
  class Freeze {
   public:
    Freeze() = default;
    explicit Freeze(std::vector<int> stopped) : stopped_(std::move(stopped)) {}
    ~Freeze();
    Freeze(Freeze&& other) noexcept : stopped_(std::move(other.stopped_)) { other.stopped_.clear(); }
    Freeze& operator=(Freeze&&) = delete;
    Freeze(const Freeze&) = delete;
    Freeze& operator=(const Freeze&) = delete;
    [[nodiscard]] std::size_t count() const { return stopped_.size(); }

   private:
    std::vector<int> stopped_;
  };

  /// Stops every live candidate except `self`.
  Freeze freeze_others(int self);

 private:
  std::mutex mutex_;
  std::set<int> pids_;
};

}  // namespace kbx::sandbox
