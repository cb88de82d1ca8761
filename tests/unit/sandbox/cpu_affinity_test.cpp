// --timing-cpus: the CPU list's parsing, and a timed process pinned for its request, then restored.
#include "kbx/sandbox/cpu_affinity.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

namespace kbx::sandbox {
namespace {

std::vector<int> affinity_of(int tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(tid, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) {
        out.push_back(cpu);
      }
    }
  }
  return out;
}

std::vector<int> threads_of(int pid) {
  std::vector<int> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    out.push_back(std::stoi(e.path().filename().string()));
  }
  return out;
}

/// A child with a second thread, both asleep until killed.
int spawn_two_threads() {
  int pid = fork();
  if (pid == 0) {
    std::thread([] { pause(); }).detach();
    pause();
    _exit(0);
  }
  for (int i = 0; i < 200 && threads_of(pid).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pid;
}

TEST(CpuList, RangesAndSingleCpusSortedWithoutRepeats) {
  std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  int last = allowed.back();
  auto one = parse_cpu_list(std::to_string(last));
  ASSERT_TRUE(one) << one.error().what();
  EXPECT_EQ(one.value(), std::vector<int>{last});
  if (allowed.size() >= 2 && allowed[1] == allowed[0] + 1) {
    auto range = parse_cpu_list(fmt::format("{0}, {0}-{1},{1}", allowed[0], allowed[1]));
    ASSERT_TRUE(range) << range.error().what();
    EXPECT_EQ(range.value(), (std::vector<int>{allowed[0], allowed[1]}));
  }
}

TEST(CpuList, BadListsNameWhatIsWrongAndTheCpusAllowed) {
  for (const char* text : {"", "x", "1-", "3-1", "-2", "0,,1", "99999"}) {
    auto r = parse_cpu_list(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().kind(), ErrorKind::usage);
    EXPECT_NE(std::string(r.error().what()).find("--timing-cpus"), std::string::npos);
    EXPECT_NE(std::string(r.error().what()).find("may run on"), std::string::npos);
  }
  auto missing = parse_cpu_list("1000");  // within CPU_SETSIZE, on no test machine
  ASSERT_FALSE(missing);
  EXPECT_NE(std::string(missing.error().what()).find("CPU 1000 is not one"), std::string::npos);
}

TEST(PinnedCpus, PinsEveryThreadWhileItLivesThenRestoresEach) {
  std::vector<int> allowed = allowed_cpus();
  int pid = spawn_two_threads();
  ASSERT_GT(pid, 0);
  std::vector<int> tids = threads_of(pid);
  ASSERT_EQ(tids.size(), 2U);
  std::vector<int> before = affinity_of(pid);
  {
    PinnedCpus pin(pid, {allowed.back()});
    for (int tid : tids) {
      EXPECT_EQ(affinity_of(tid), std::vector<int>{allowed.back()}) << tid;
    }
  }
  for (int tid : tids) {
    EXPECT_EQ(affinity_of(tid), before) << tid;
  }
  {
    PinnedCpus nothing(pid, {});  // no --timing-cpus: untouched
    EXPECT_EQ(affinity_of(pid), before);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  PinnedCpus gone(pid, {allowed.back()});  // a process that ended: nothing to pin, no error
}

}  // namespace
}  // namespace kbx::sandbox
