// Tests of FolderLock: one writer per output folder, released however the holder ends.
#include "kbx/common/folder_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "kbx/common/error.h"
#include "support/test_support.h"

extern char** environ;

namespace kbx {
namespace {

namespace fs = std::filesystem;
using kbx::testing::error_of;
using kbx::testing::ScopedTempDir;

/// Forks a child that takes the lock of `folder`, signals through a pipe, then sleeps until killed.
pid_t fork_holder(const fs::path& folder) {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    try {
      auto lock = FolderLock::acquire(folder, {"kbx", "eval", "held-by-child"});
      (void)!write(ready[1], "1", 1);
      while (true) {
        pause();
      }
    } catch (...) {
      _exit(3);
    }
  }
  close(ready[1]);
  char c = 0;
  EXPECT_EQ(read(ready[0], &c, 1), 1) << "the child could not take the lock";
  close(ready[0]);
  return pid;
}

void kill9_and_reap(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
}

TEST(FolderLock, CreatesTheFolderAndRecordsThisProcessAsHolder) {
  ScopedTempDir dir;
  fs::path out = dir.path() / "runs" / "a";
  auto lock = FolderLock::acquire(out, {"kbx", "eval", "src", "-o", out.string()});
  EXPECT_EQ(lock.path(), out / "kbx.lock");
  auto holder = FolderLock::recorded_holder(out);
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(holder->pid, getpid());
  EXPECT_EQ(holder->command, "kbx eval src -o " + out.string());
}

TEST(FolderLock, SecondAcquireIsRefusedWithTheFolderTheHolderAndWhatToDo) {
  ScopedTempDir dir;
  auto first = FolderLock::acquire(dir.path(), {"kbx", "eval", "x"});
  Error e = error_of([&] { (void)FolderLock::acquire(dir.path(), {"kbx", "eval", "y"}); });
  EXPECT_EQ(e.kind(), ErrorKind::busy);
  EXPECT_CONTAINS(e.what(), dir.path().string());
  EXPECT_CONTAINS(e.what(), fmt::format("pid {}: kbx eval x", getpid()));
  EXPECT_CONTAINS(e.what(), "wait for it to finish, or use another output folder");
  // The refused attempt leaves the holder's record alone.
  EXPECT_EQ(FolderLock::recorded_holder(dir.path())->command, "kbx eval x");
}

TEST(FolderLock, ReleasedOnDestructionAndEmptiesTheRecord) {
  ScopedTempDir dir;
  { auto lock = FolderLock::acquire(dir.path(), {"kbx"}); }
  EXPECT_FALSE(FolderLock::recorded_holder(dir.path()).has_value());
  EXPECT_TRUE(fs::exists(dir.path() / "kbx.lock"));  // the file stays; only the flock counts
  auto again = FolderLock::acquire(dir.path(), {"kbx"});
  EXPECT_EQ(FolderLock::recorded_holder(dir.path())->pid, getpid());
}

TEST(FolderLock, MovedLockIsReleasedOnceByItsNewOwner) {
  ScopedTempDir dir;
  auto a = FolderLock::acquire(dir.path(), {"kbx"});
  FolderLock b = std::move(a);
  EXPECT_EQ(error_of([&] { (void)FolderLock::acquire(dir.path(), {"kbx"}); }).kind(),
            ErrorKind::busy);
  b = FolderLock::acquire(dir.path() / "other", {"kbx"});  // releases the first folder's lock
  auto c = FolderLock::acquire(dir.path(), {"kbx"});
}

TEST(FolderLock, AnotherProcessIsNamedAndItsKill9ReleasesTheLock) {
  ScopedTempDir dir;
  pid_t child = fork_holder(dir.path());
  Error e = error_of([&] { (void)FolderLock::acquire(dir.path(), {"kbx"}); });
  EXPECT_EQ(e.kind(), ErrorKind::busy);
  EXPECT_CONTAINS(e.what(), fmt::format("pid {}: kbx eval held-by-child", child));
  kill9_and_reap(child);
  // The stale record does not matter: the kernel dropped the flock with the process.
  EXPECT_EQ(FolderLock::recorded_holder(dir.path())->pid, child);
  auto lock = FolderLock::acquire(dir.path(), {"kbx"});
  EXPECT_EQ(FolderLock::recorded_holder(dir.path())->pid, getpid());
}

TEST(FolderLock, ProcessesStartedByTheHolderDoNotKeepTheLock) {
  ScopedTempDir dir;
  pid_t sleeper = 0;
  {
    auto lock = FolderLock::acquire(dir.path(), {"kbx"});
    const char* argv[] = {"sleep", "30", nullptr};
    ASSERT_EQ(posix_spawnp(&sleeper, "sleep", nullptr, nullptr, const_cast<char**>(argv), environ),
              0);
  }
  // The spawned process (like the Python zygote) is still alive, but holds no copy of the lock.
  auto lock = FolderLock::acquire(dir.path(), {"kbx"});
  kill9_and_reap(sleeper);
}

TEST(FolderLock, RefusalWithoutARecordedHolderSaysThePidIsUnknown) {
  ScopedTempDir dir;
  auto lock = FolderLock::acquire(dir.path(), {"kbx"});
  dir.write("kbx.lock", "");  // as if the holder had not written its name yet
  auto started = std::chrono::steady_clock::now();
  Error e = error_of([&] { (void)FolderLock::acquire(dir.path(), {"kbx"}); });
  EXPECT_EQ(e.kind(), ErrorKind::busy);
  EXPECT_CONTAINS(e.what(), "pid unknown");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(FolderLock, RefusalDoesNotNameADeadProcessWhoseRecordIsStillInTheFile) {
  ScopedTempDir dir;
  pid_t child = fork_holder(dir.path());
  kill9_and_reap(child);
  auto lock = FolderLock::acquire(dir.path(), {"kbx"});
  // As if the lock were taken but the killed holder's record not yet overwritten.
  dir.write("kbx.lock", fmt::format("pid {}\ncommand kbx eval old\n", child));
  Error e = error_of([&] { (void)FolderLock::acquire(dir.path(), {"kbx"}); });
  EXPECT_EQ(e.kind(), ErrorKind::busy);
  EXPECT_CONTAINS(e.what(), "pid unknown");
}

TEST(FolderLock, AnUncreatableLockFileIsAnIoErrorNamingIt) {
  ScopedTempDir dir;
  dir.write("file", "not a folder");
  Error e = error_of([&] { (void)FolderLock::acquire(dir.path() / "file", {"kbx"}); });
  EXPECT_EQ(e.kind(), ErrorKind::io);
  EXPECT_CONTAINS(e.what(), (dir.path() / "file").string());
}

}  // namespace
}  // namespace kbx
