// JobQueue: bounded, FIFO, closable.
#include "kbx/serve/job_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace kbx::serve {
namespace {

TEST(JobQueue, RefusesAJobOnceCapacityJobsWait) {
  JobQueue q(2);
  EXPECT_TRUE(q.try_push([] {}));
  EXPECT_TRUE(q.try_push([] {}));
  EXPECT_FALSE(q.try_push([] {}));
  EXPECT_EQ(q.depth(), 2U);
  ASSERT_TRUE(q.pop().has_value());
  EXPECT_TRUE(q.try_push([] {}));  // a job taken frees its place
}

TEST(JobQueue, HandsJobsOutInOrder) {
  JobQueue q(3);
  std::vector<int> seen;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(q.try_push([&seen, i] { seen.push_back(i); }));
  }
  for (int i = 0; i < 3; ++i) {
    (*q.pop())();
  }
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(JobQueue, CloseWakesWaitersAndRefusesNewJobsButDrainsQueuedOnes) {
  JobQueue q(4);
  ASSERT_TRUE(q.try_push([] {}));
  q.close();
  EXPECT_FALSE(q.try_push([] {}));
  EXPECT_TRUE(q.pop().has_value());
  EXPECT_FALSE(q.pop().has_value());
}

TEST(JobQueue, ManyProducersAndConsumersLoseNoJob) {
  JobQueue q(8);
  std::atomic<int> ran{0};
  std::atomic<int> accepted{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < 3; ++c) {
    consumers.emplace_back([&] {
      while (auto job = q.pop()) {
        (*job)();
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        while (!q.try_push([&ran] { ran.fetch_add(1); })) {
          std::this_thread::yield();
        }
        accepted.fetch_add(1);
      }
    });
  }
  for (auto& t : producers) {
    t.join();
  }
  q.close();
  for (auto& t : consumers) {
    t.join();
  }
  EXPECT_EQ(accepted.load(), 2000);
  EXPECT_EQ(ran.load(), 2000);
}

}  // namespace
}  // namespace kbx::serve
