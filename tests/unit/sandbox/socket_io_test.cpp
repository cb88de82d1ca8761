// Tests of write_frame/read_frame over a real socketpair: fd passing, timeouts, closed peers and
// cancellation.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kbx/sandbox/protocol.h"

namespace kbx::sandbox {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Both ends of an AF_UNIX stream socketpair, closed on destruction unless already closed.
class SocketPair {
 public:
  SocketPair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0) << std::strerror(errno);
    a_ = fds[0];
    b_ = fds[1];
  }

  ~SocketPair() {
    close_a();
    close_b();
  }

  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;

  [[nodiscard]] int a() const { return a_; }

  [[nodiscard]] int b() const { return b_; }

  void close_a() { close_fd(a_); }

  void close_b() { close_fd(b_); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
  }

  int a_ = -1;
  int b_ = -1;
};

// Resets the process-wide cancel flag when a test ends, so tests stay independent.
class CancelFlagGuard {
 public:
  explicit CancelFlagGuard(const std::atomic<bool>* flag) { set_cancel_flag(flag); }

  ~CancelFlagGuard() { set_cancel_flag(nullptr); }

  CancelFlagGuard(const CancelFlagGuard&) = delete;
  CancelFlagGuard& operator=(const CancelFlagGuard&) = delete;
};

Frame frame_with(const Json& header, std::vector<std::uint8_t> payload = {}) {
  Frame f;
  f.header = header;
  f.payload = std::move(payload);
  return f;
}

struct ReadOutcome {
  std::optional<Frame> frame;
  ReadFailure failure = ReadFailure::protocol;
  std::string error;
  double elapsed_ms = 0;
};

ReadOutcome read_with_deadline(int fd, FrameReader& reader, Clock::duration timeout,
                               bool cancellable = true) {
  ReadOutcome out;
  auto start = Clock::now();
  out.frame = read_frame(fd, reader, start + timeout, out.failure, out.error, cancellable);
  out.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

TEST(SocketIo, FrameWrittenOnOneEndIsReadOnTheOther) {
  SocketPair sp;
  ASSERT_TRUE(write_frame(sp.a(), frame_with(Json{{"op", "load"}, {"code", "x = 1"}}, {1, 2, 3})));
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 5s);
  ASSERT_TRUE(r.frame.has_value()) << r.error;
  EXPECT_EQ(r.frame->op(), "load");
  EXPECT_EQ(r.frame->header["code"], "x = 1");
  EXPECT_EQ(r.frame->payload, (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(SocketIo, FrameLargerThanTheSocketBufferArrivesWhole) {
  SocketPair sp;
  std::vector<std::uint8_t> payload(8 << 20);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    payload[i] = static_cast<std::uint8_t>(i * 31);
  }
  bool written = false;
  std::thread writer([&] {
    written = write_frame(sp.a(), frame_with(Json{{"op", "big"}}, payload));
  });
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 20s);
  writer.join();
  EXPECT_TRUE(written);
  ASSERT_TRUE(r.frame.has_value()) << r.error;
  EXPECT_EQ(r.frame->payload, payload);
}

TEST(SocketIo, TwoFramesArrivingTogetherAreReadOneAtATime) {
  SocketPair sp;
  ASSERT_TRUE(write_frame(sp.a(), frame_with(Json{{"op", "forked"}, {"id", 1}})));
  ASSERT_TRUE(write_frame(sp.a(), frame_with(Json{{"op", "exited"}, {"pid", 2}})));
  FrameReader reader;
  auto first = read_with_deadline(sp.b(), reader, 5s);
  ASSERT_TRUE(first.frame.has_value()) << first.error;
  EXPECT_EQ(first.frame->op(), "forked");
  sp.close_a();  // the second frame must come from the reader's buffer or the socket
  auto second = read_with_deadline(sp.b(), reader, 5s);
  ASSERT_TRUE(second.frame.has_value()) << second.error;
  EXPECT_EQ(second.frame->op(), "exited");
}

TEST(SocketIo, PassesADescriptorWithScmRightsOnTheFirstByte) {
  SocketPair sp;
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  ASSERT_TRUE(write_frame(sp.a(), frame_with(Json{{"op", "fork"}, {"id", 7}}), pipe_fds[1]));
  ::close(pipe_fds[1]);  // the only write end left is the one passed over the socket

  std::vector<std::uint8_t> buffer(4096);
  iovec iov{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n = recvmsg(sp.b(), &msg, MSG_CMSG_CLOEXEC);
  ASSERT_GT(n, 0) << std::strerror(errno);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  ASSERT_NE(cmsg, nullptr);
  ASSERT_EQ(cmsg->cmsg_level, SOL_SOCKET);
  ASSERT_EQ(cmsg->cmsg_type, SCM_RIGHTS);
  int received = -1;
  std::memcpy(&received, CMSG_DATA(cmsg), sizeof(int));
  ASSERT_GE(received, 0);

  FrameReader reader;
  reader.feed(buffer.data(), static_cast<std::size_t>(n));
  auto r = read_with_deadline(sp.b(), reader, 5s);  // the rest of the frame, if any
  ASSERT_TRUE(r.frame.has_value()) << r.error;
  EXPECT_EQ(r.frame->header["id"], 7);

  ASSERT_EQ(::write(received, "hi", 2), 2);
  ::close(received);
  char text[3] = {};
  ASSERT_EQ(::read(pipe_fds[0], text, 2), 2);
  EXPECT_STREQ(text, "hi");
  ::close(pipe_fds[0]);
}

TEST(SocketIo, ReadTimesOutWhenNothingArrives) {
  SocketPair sp;
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 150ms);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::timeout);
  EXPECT_GE(r.elapsed_ms, 150);
  EXPECT_LT(r.elapsed_ms, 3000);
}

TEST(SocketIo, ReadTimesOutOnAPartialFrame) {
  SocketPair sp;
  auto bytes = encode_frame(frame_with(Json{{"op", "x"}}));
  ASSERT_EQ(::send(sp.a(), bytes.data(), bytes.size() - 1, 0),
            static_cast<ssize_t>(bytes.size() - 1));
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 100ms);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::timeout);
}

TEST(SocketIo, ReadReportsAClosedPeer) {
  SocketPair sp;
  sp.close_a();
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 5s);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::closed);
  EXPECT_LT(r.elapsed_ms, 3000);
}

TEST(SocketIo, PeerClosingMidFrameIsClosedNotAFrame) {
  SocketPair sp;
  auto bytes = encode_frame(frame_with(Json{{"op", "x"}}, {1, 2, 3}));
  ASSERT_EQ(::send(sp.a(), bytes.data(), 14, 0), 14);
  sp.close_a();
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 5s);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::closed);
}

TEST(SocketIo, MalformedFrameIsAProtocolFailureWithItsText) {
  SocketPair sp;
  std::string header = "[]";
  std::vector<std::uint8_t> bytes{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  ASSERT_EQ(::send(sp.a(), bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 5s);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::protocol);
  EXPECT_NE(r.error.find("'op'"), std::string::npos) << r.error;
}

TEST(SocketIo, WriteToAClosedPeerReturnsFalseWithoutSigpipe) {
  SocketPair sp;
  sp.close_b();
  EXPECT_FALSE(
      write_frame(sp.a(), frame_with(Json{{"op", "x"}}, std::vector<std::uint8_t>(1 << 20))));
}

TEST(SocketIo, SetCancelFlagEndsAReadAsCancelled) {
  SocketPair sp;
  std::atomic<bool> stop{true};
  CancelFlagGuard guard(&stop);
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 30s);
  EXPECT_FALSE(r.frame.has_value());
  EXPECT_EQ(r.failure, ReadFailure::cancelled);
  EXPECT_LT(r.elapsed_ms, 3000);
}

TEST(SocketIo, CancelFlagSetDuringAReadEndsItWithinAboutASecond) {
  SocketPair sp;
  std::atomic<bool> stop{false};
  CancelFlagGuard guard(&stop);
  std::thread setter([&] {
    std::this_thread::sleep_for(100ms);
    stop = true;
  });
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 30s);
  setter.join();
  EXPECT_EQ(r.failure, ReadFailure::cancelled);
  EXPECT_LT(r.elapsed_ms, 5000);
}

TEST(SocketIo, UncancellableReadIgnoresTheCancelFlag) {
  SocketPair sp;
  std::atomic<bool> stop{true};
  CancelFlagGuard guard(&stop);
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 100ms, false);
  EXPECT_EQ(r.failure, ReadFailure::timeout);
}

TEST(SocketIo, CancelledReadStillReturnsAFrameAlreadyBuffered) {
  SocketPair sp;
  std::atomic<bool> stop{true};
  CancelFlagGuard guard(&stop);
  FrameReader reader;
  auto bytes = encode_frame(frame_with(Json{{"op", "ready"}}));
  reader.feed(bytes.data(), bytes.size());
  auto r = read_with_deadline(sp.b(), reader, 5s);
  ASSERT_TRUE(r.frame.has_value());
  EXPECT_EQ(r.frame->op(), "ready");
}

TEST(SocketIo, ClearedCancelFlagNoLongerCancels) {
  SocketPair sp;
  std::atomic<bool> stop{true};
  { CancelFlagGuard guard(&stop); }
  FrameReader reader;
  auto r = read_with_deadline(sp.b(), reader, 100ms);
  EXPECT_EQ(r.failure, ReadFailure::timeout);
}

}  // namespace
}  // namespace kbx::sandbox
