// LiveCandidates: other candidates are stopped while one is timed, and resumed after.
// StartingWorkers: starts under way are stopped while a host-bound call is timed.
#include "kbx/sandbox/live_candidates.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace kbx::sandbox {
namespace {

/// The state letter of /proc/<pid>/stat ('S' sleeping, 'T' stopped, ...).
char state_of(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

char wait_for_state(int pid, bool stopped) {
  for (int i = 0; i < 200; ++i) {
    char s = state_of(pid);
    if ((s == 'T') == stopped) {
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return state_of(pid);
}

int spawn_sleeper() {
  int pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, as a worker has
    pause();
    _exit(0);
  }
  setpgid(pid, pid);
  return pid;
}

/// Freezes the others of `self` (the candidate `other`, whose process `escaped` left its group):
/// both stopped, `self` not, all resumed after; then kills the three.
void expect_escaped_frozen_with_other(LiveCandidates& live, int self, int other, int escaped) {
  live.add(self);
  live.add(other);
  {
    auto freeze = live.freeze_others(self);
    EXPECT_EQ(freeze.count(), 1U);
    auto stopped = freeze.processes();
    std::sort(stopped.begin(), stopped.end());
    EXPECT_EQ(stopped, (std::vector<int>{std::min(other, escaped), std::max(other, escaped)}));
    EXPECT_EQ(wait_for_state(other, true), 'T');
    EXPECT_EQ(wait_for_state(escaped, true), 'T');
    EXPECT_NE(state_of(self), 'T');
  }
  EXPECT_NE(wait_for_state(other, false), 'T');
  EXPECT_NE(wait_for_state(escaped, false), 'T');
  for (int pid : {self, other, escaped}) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

TEST(LiveCandidates, FreezesEveryOtherCandidateUntilTheFreezeEnds) {
  int self = spawn_sleeper();
  int other = spawn_sleeper();
  LiveCandidates live;
  live.add(self);
  live.add(other);
  {
    auto freeze = live.freeze_others(self);
    EXPECT_EQ(freeze.count(), 1U);
    EXPECT_EQ(wait_for_state(other, true), 'T');
    EXPECT_NE(state_of(self), 'T');
  }
  EXPECT_NE(wait_for_state(other, false), 'T');
  live.remove(other);
  EXPECT_EQ(live.freeze_others(self).count(), 0U);
  for (int pid : {self, other}) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

// A process the candidate started that left its process group (setsid) is still in the
// worker's pids cgroup: it is stopped with the candidate, and resumed with it.
TEST(LiveCandidates, FreezesTheProcessesInACandidatesCgroupOutsideItsGroup) {
  int self = spawn_sleeper();
  int other = spawn_sleeper();
  int escaped = spawn_sleeper();  // a group of its own, as after setsid
  auto root = std::filesystem::temp_directory_path() /
              ("kbx-live-cgroups-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "pids" / ("kbx-w" + std::to_string(other)));
  std::ofstream(root / "pids" / "cgroup.procs") << "";
  std::ofstream(root / "pids" / ("kbx-w" + std::to_string(other)) / "cgroup.procs")
      << other << "\n" << escaped << "\n";
  LiveCandidates live(root, root / "proc");  // no processes listed: the cgroup alone
  expect_escaped_frozen_with_other(live, self, other, escaped);
  std::filesystem::remove_all(root);
}

// Under a uid of its own (kbx as root), every process of that uid is the candidate's.
TEST(LiveCandidates, FreezesTheProcessesOfACandidatesOwnUid) {
  int self = spawn_sleeper();
  int other = spawn_sleeper();
  int escaped = spawn_sleeper();
  auto root = std::filesystem::temp_directory_path() /
              ("kbx-live-uids-" + std::to_string(getpid()));
  auto status = [&](int pid, int uid) {
    std::filesystem::create_directories(root / "proc" / std::to_string(pid));
    std::ofstream(root / "proc" / std::to_string(pid) / "status")
        << "Name:\tpython3\nUid:\t" << uid << "\t" << uid << "\t" << uid << "\t" << uid << "\n";
  };
  status(self, 2000001);
  status(other, 2000002);
  status(escaped, 2000002);
  LiveCandidates live(root / "cgroups", root / "proc");  // no cgroups: the uid alone
  expect_escaped_frozen_with_other(live, self, other, escaped);
  std::filesystem::remove_all(root);
}

TEST(StartingWorkers, AQuietStopsEveryStartUnderWayAndThoseBegunMeanwhile) {
  int early = spawn_sleeper();
  int late = spawn_sleeper();
  int done = spawn_sleeper();
  StartingWorkers starting;
  starting.add(early);
  starting.add(done);
  starting.remove(done);  // ready before the quiet: not a start any more
  {
    auto quiet = starting.quiet();
    EXPECT_EQ(wait_for_state(early, true), 'T');
    starting.add(late);  // forked while the host is quiet: stopped at once
    EXPECT_EQ(wait_for_state(late, true), 'T');
    EXPECT_EQ(starting.stopped(), 2U);
    {
      auto nested = starting.quiet();  // a second timing's quiet (another GPU)
    }
    EXPECT_EQ(state_of(early), 'T');  // only the last quiet to end resumes them
    EXPECT_EQ(state_of(late), 'T');
    EXPECT_NE(state_of(done), 'T');
  }
  EXPECT_NE(wait_for_state(early, false), 'T');
  EXPECT_NE(wait_for_state(late, false), 'T');
  EXPECT_EQ(starting.stopped(), 0U);
  for (int pid : {early, late, done}) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

TEST(StartingWorkers, AQuietMovedOutEndsOnce) {
  int pid = spawn_sleeper();
  StartingWorkers starting;
  starting.add(pid);
  {
    auto first = starting.quiet();
    StartingWorkers::Quiet moved = std::move(first);
    EXPECT_EQ(wait_for_state(pid, true), 'T');
  }
  EXPECT_NE(wait_for_state(pid, false), 'T');
  {
    auto again = starting.quiet();  // the depth went back to 0: a new quiet stops it again
    EXPECT_EQ(wait_for_state(pid, true), 'T');
  }
  EXPECT_NE(wait_for_state(pid, false), 'T');
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(StartingWorkers, AReleasedQuietResumesItsStartsAndStopsNoMoreUntilItEnds) {
  int early = spawn_sleeper();
  int late = spawn_sleeper();
  StartingWorkers starting;
  starting.release();  // no quiet: nothing to release, and the next quiet is not released
  starting.add(early);
  {
    auto quiet = starting.quiet();
    EXPECT_EQ(wait_for_state(early, true), 'T');
    starting.release();  // the quiet ran too long (WorkerPool's watch)
    EXPECT_NE(wait_for_state(early, false), 'T');
    EXPECT_EQ(starting.stopped(), 0U);
    starting.add(late);  // begun after the release: not stopped
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_NE(state_of(late), 'T');
  }
  starting.remove(early);
  {
    auto quiet = starting.quiet();  // the next quiet stops again
    EXPECT_EQ(wait_for_state(late, true), 'T');
  }
  EXPECT_NE(wait_for_state(late, false), 'T');
  for (int pid : {early, late}) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

}  // namespace
}  // namespace kbx::sandbox
