// Tests of Worker::wait_ready against a scripted child on a socket pair: the start's GPU hold
// ("hold" / "held" / "unhold" before "ready", docs/worker-protocol.md).
#include "kbx/sandbox/worker.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

namespace kbx::sandbox {
namespace {

struct Pair {
  int ours = -1;
  int theirs = -1;
  Pair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    ours = sv[0];
    theirs = sv[1];
  }
  ~Pair() { close(theirs); }  // ours belongs to the Worker
};

Frame op(const std::string& name) { return Frame{Json{{"op", name}}, {}}; }

TEST(WorkerWaitReady, AnswersTheChildsHoldAndGivesItBackBeforeReady) {
  Pair p;
  Worker worker(p.ours, -1, WorkerSpec{});
  std::vector<std::string> log;
  ContextHold hold{[&] { log.push_back("take"); }, [&] { log.push_back("give"); }};
  std::thread child([&] {
    ASSERT_TRUE(write_frame(p.theirs, op("hold")));
    FrameReader reader;
    ReadFailure failure{};
    std::string error;
    auto held =
        read_frame(p.theirs, reader, Clock::now() + std::chrono::seconds(10), failure, error);
    ASSERT_TRUE(held.has_value()) << error;
    EXPECT_EQ(held->op(), "held");
    log.push_back("held read");
    ASSERT_TRUE(write_frame(p.theirs, op("unhold")));
    ASSERT_TRUE(write_frame(p.theirs, Frame{Json{{"op", "ready"}, {"pid", 7}}, {}}));
  });
  Reply r = worker.wait_ready(Clock::now() + std::chrono::seconds(10), &hold);
  child.join();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(worker.ready_info().value("pid", 0), 7);
  EXPECT_EQ(log, (std::vector<std::string>{"take", "held read", "give"}));
}

TEST(WorkerWaitReady, TheWaitForTheHoldDoesNotCountAgainstTheChildsDeadline) {
  Pair p;
  Worker worker(p.ours, -1, WorkerSpec{});
  // The hold takes 300 ms (a timing run under way); the child answers at once after it.
  ContextHold hold{[] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }, [] {}};
  std::thread child([&] {
    ASSERT_TRUE(write_frame(p.theirs, op("hold")));
    FrameReader reader;
    ReadFailure failure{};
    std::string error;
    ASSERT_TRUE(read_frame(p.theirs, reader, Clock::now() + std::chrono::seconds(10), failure,
                           error).has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(write_frame(p.theirs, op("ready")));
  });
  Reply r = worker.wait_ready(Clock::now() + std::chrono::milliseconds(250), &hold);
  child.join();
  EXPECT_TRUE(r.ok()) << r.error;
}

TEST(WorkerWaitReady, AHoldNobodyOfferedIsAProtocolError) {
  Pair p;
  Worker worker(p.ours, -1, WorkerSpec{});
  ASSERT_TRUE(write_frame(p.theirs, op("hold")));
  Reply r = worker.wait_ready(Clock::now() + std::chrono::seconds(10));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failure, ReadFailure::protocol);
  EXPECT_NE(r.error.find("expected 'ready', got 'hold'"), std::string::npos) << r.error;
}

TEST(WorkerWaitReady, AChildThatDiesUnderItsHoldEndsTheWait) {
  Pair p;
  Worker worker(p.ours, -1, WorkerSpec{});
  int taken = 0;
  ContextHold hold{[&] { ++taken; }, [] {}};
  ASSERT_TRUE(write_frame(p.theirs, op("hold")));
  shutdown(p.theirs, SHUT_WR);  // no "unhold", no "ready": the caller gives the hold back
  Reply r = worker.wait_ready(Clock::now() + std::chrono::seconds(10), &hold);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failure, ReadFailure::closed);
  EXPECT_EQ(taken, 1);
}

}  // namespace
}  // namespace kbx::sandbox
