// Tests of GpuLock: shared holders run together, exclusive waits for them and keeps new ones out.
// Every wait is bounded, so a locking bug fails the test instead of hanging it.
#include "kbx/sandbox/gpu_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

namespace kbx::sandbox {
namespace {

using namespace std::chrono_literals;

// Generous bound for something that should happen promptly; the time a test gives a waiting
// thread to (wrongly) get in.
constexpr auto soon = 10s;
constexpr auto a_while = 150ms;

// Runs `fn` on a detached thread; the future is ready when it returns. A thread stuck in a
// buggy lock then outlives the test instead of blocking it, so the lock lives in a shared_ptr.
std::future<void> start(std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  std::thread([fn = std::move(fn), done] {
    fn();
    done->set_value();
  }).detach();
  return future;
}

bool finished_within(std::future<void>& f, std::chrono::milliseconds limit) {
  return f.wait_for(limit) == std::future_status::ready;
}

TEST(GpuLock, ManySharedHoldersHoldItAtOnce) {
  auto lock = std::make_shared<GpuLock>();
  constexpr int holders = 4;
  auto all_in = std::make_shared<std::latch>(holders);
  std::vector<std::future<void>> done;
  for (int i = 0; i < holders; ++i) {
    done.push_back(start([lock, all_in] {
      SharedGpuHold hold(*lock);
      all_in->arrive_and_wait();  // returns only once every holder is inside at the same time
    }));
  }
  for (auto& f : done) {
    ASSERT_TRUE(finished_within(f, soon)) << "shared holders excluded each other";
  }
}

TEST(GpuLock, ExclusiveWaitsForEverySharedHolderToLeave) {
  auto lock = std::make_shared<GpuLock>();
  lock->lock_shared();
  lock->lock_shared();
  auto acquired = std::make_shared<std::atomic<bool>>(false);
  auto release = std::make_shared<std::promise<void>>();
  auto exclusive = start([lock, acquired, gate = release->get_future().share()] {
    ExclusiveGpuHold hold(*lock);
    *acquired = true;
    gate.wait();
  });

  std::this_thread::sleep_for(a_while);
  EXPECT_FALSE(*acquired) << "exclusive got in while two shared holders held the lock";
  lock->unlock_shared();
  std::this_thread::sleep_for(a_while);
  EXPECT_FALSE(*acquired) << "exclusive got in while one shared holder held the lock";
  lock->unlock_shared();
  auto deadline = std::chrono::steady_clock::now() + soon;
  while (!*acquired && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(*acquired) << "exclusive never got in after the shared holders left";
  release->set_value();
  ASSERT_TRUE(finished_within(exclusive, soon));
}

TEST(GpuLock, WaitingExclusiveKeepsNewSharedHoldersOutUntilItIsDone) {
  auto lock = std::make_shared<GpuLock>();
  lock->lock_shared();  // an early holder keeps the exclusive one waiting

  auto exclusive_in = std::make_shared<std::atomic<bool>>(false);
  auto exclusive_out = std::make_shared<std::atomic<bool>>(false);
  auto exclusive = start([lock, exclusive_in, exclusive_out] {
    lock->lock();
    *exclusive_in = true;
    std::this_thread::sleep_for(a_while);
    *exclusive_out = true;
    lock->unlock();
  });
  std::this_thread::sleep_for(a_while);  // let it start waiting

  auto late_in = std::make_shared<std::atomic<bool>>(false);
  auto saw_exclusive_running = std::make_shared<std::atomic<bool>>(false);
  auto late = start([lock, late_in, exclusive_in, exclusive_out, saw_exclusive_running] {
    SharedGpuHold hold(*lock);
    *late_in = true;
    *saw_exclusive_running = *exclusive_in && !*exclusive_out;
  });

  std::this_thread::sleep_for(a_while);
  EXPECT_FALSE(*late_in) << "a new shared holder got past a waiting exclusive one";
  lock->unlock_shared();
  ASSERT_TRUE(finished_within(exclusive, soon)) << "exclusive never got the lock";
  ASSERT_TRUE(finished_within(late, soon)) << "the late shared holder never got in";
  EXPECT_FALSE(*saw_exclusive_running) << "shared and exclusive held the lock together";
}

TEST(GpuLock, ExclusiveHoldersTakeTurns) {
  auto lock = std::make_shared<GpuLock>();
  auto inside = std::make_shared<std::atomic<int>>(0);
  auto overlap = std::make_shared<std::atomic<bool>>(false);
  std::vector<std::future<void>> done;
  for (int i = 0; i < 3; ++i) {
    done.push_back(start([lock, inside, overlap] {
      for (int round = 0; round < 20; ++round) {
        ExclusiveGpuHold hold(*lock);
        if (inside->fetch_add(1) != 0) {
          *overlap = true;
        }
        std::this_thread::sleep_for(200us);
        inside->fetch_sub(1);
      }
    }));
  }
  for (auto& f : done) {
    ASSERT_TRUE(finished_within(f, soon));
  }
  EXPECT_FALSE(*overlap) << "two exclusive holders were inside at once";
}

TEST(GpuLock, ExclusiveHolderKeepsSharedOnesOutAndReleasesThemOnUnlock) {
  auto lock = std::make_shared<GpuLock>();
  lock->lock();
  auto shared_in = std::make_shared<std::atomic<bool>>(false);
  auto shared = start([lock, shared_in] {
    SharedGpuHold hold(*lock);
    *shared_in = true;
  });
  std::this_thread::sleep_for(a_while);
  EXPECT_FALSE(*shared_in) << "a shared holder got in during an exclusive hold";
  lock->unlock();
  ASSERT_TRUE(finished_within(shared, soon));
  EXPECT_TRUE(*shared_in);
}

TEST(GpuLock, HoldsReleaseTheLockWhenTheyGoOutOfScope) {
  auto lock = std::make_shared<GpuLock>();
  {
    SharedGpuHold a(*lock);
    SharedGpuHold b(*lock);
  }
  { ExclusiveGpuHold e(*lock); }
  auto again = start([lock] { ExclusiveGpuHold e(*lock); });
  ASSERT_TRUE(finished_within(again, soon)) << "a hold did not release the lock";
}

}  // namespace
}  // namespace kbx::sandbox
