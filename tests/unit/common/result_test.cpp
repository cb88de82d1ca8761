// Tests of kbx::Error and Result<T>.
#include "kbx/common/result.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "kbx/common/error.h"

namespace kbx {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) {
    return Error(ErrorKind::suite, "value must be positive (got {})", v);
  }
  return v;
}

TEST(Error, FormatsItsMessageAndKeepsItsKind) {
  Error e(ErrorKind::usage, "unknown flag '{}' (did you mean '{}'?)", "--job", "--jobs");
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_STREQ(e.what(), "unknown flag '--job' (did you mean '--jobs'?)");
}

TEST(Error, KindsHaveStableNames) {
  EXPECT_EQ(to_string(ErrorKind::usage), "usage");
  EXPECT_EQ(to_string(ErrorKind::suite), "suite");
  EXPECT_EQ(to_string(ErrorKind::input), "input");
  EXPECT_EQ(to_string(ErrorKind::io), "io");
  EXPECT_EQ(to_string(ErrorKind::store), "store");
  EXPECT_EQ(to_string(ErrorKind::protocol), "protocol");
  EXPECT_EQ(to_string(ErrorKind::worker), "worker");
  EXPECT_EQ(to_string(ErrorKind::internal), "internal");
}

TEST(Error, SysErrorIsAnIoErrorWithTheCallTheSubjectAndErrnoText) {
  Error e = sys_error("open", ENOENT, "/x/y");
  EXPECT_EQ(e.kind(), ErrorKind::io);
  EXPECT_STREQ(e.what(), "open /x/y: No such file or directory");
  EXPECT_STREQ(sys_error("pipe", EMFILE).what(), "pipe: Too many open files");
}

TEST(Result, HoldsAValue) {
  auto r = parse_positive(3);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(*r, 3);
  EXPECT_EQ(r.value(), 3);
}

TEST(Result, HoldsAnError) {
  auto r = parse_positive(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().kind(), ErrorKind::suite);
  EXPECT_STREQ(r.error().what(), "value must be positive (got -1)");
}

TEST(Result, GivesMemberAccessAndMovesOutMoveOnlyValues) {
  Result<std::string> s(std::string("abc"));
  EXPECT_EQ(s->size(), 3U);
  Result<std::unique_ptr<int>> p(std::make_unique<int>(7));
  std::unique_ptr<int> owned = std::move(p).value();
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, 7);
}

TEST(ResultDeathTest, ValueOfAnErrorAbortsWithTheErrorText) {
  auto r = parse_positive(0);
  EXPECT_DEATH((void)r.value(), "Result::value\\(\\) on an error: value must be positive");
}

TEST(ResultDeathTest, ErrorOfAValueAborts) {
  auto r = parse_positive(1);
  EXPECT_DEATH((void)r.error(), "Result::error\\(\\) on a value");
}

}  // namespace
}  // namespace kbx
