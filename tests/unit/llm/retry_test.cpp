// Retry policy: which answers are retried, how long kbx waits, Retry-After in both forms.
#include "kbx/llm/retry.h"

#include <gtest/gtest.h>

namespace kbx::llm {
namespace {

std::chrono::system_clock::time_point at(std::time_t t) {
  return std::chrono::system_clock::from_time_t(t);
}

TEST(RetryAfter, ReadsDelaySeconds) {
  EXPECT_EQ(retry_after_ms("3", at(0)), 3000);
  EXPECT_EQ(retry_after_ms(" 0 ", at(0)), 0);
}

TEST(RetryAfter, ReadsAnHttpDateRelativeToNow) {
  // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480.
  EXPECT_EQ(retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT", at(1445412480 - 7)), 7000);
}

TEST(RetryAfter, APastDateMeansNoWait) {
  EXPECT_EQ(retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT", at(1445412480 + 60)), 0);
}

TEST(RetryAfter, GarbageIsIgnored) {
  EXPECT_FALSE(retry_after_ms("soon", at(0)).has_value());
  EXPECT_FALSE(retry_after_ms("", at(0)).has_value());
  EXPECT_FALSE(retry_after_ms("-5", at(0)).has_value());
  EXPECT_FALSE(retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT trailing", at(0)).has_value());
}

TEST(RetryAfter, AnAbsurdDelayIsCappedByThePolicy) {
  RetryPolicy p;
  p.max_wait_ms = 60'000;
  EXPECT_EQ(backoff_ms(p, 1, retry_after_ms("99999999999999", at(0))), 60'000);
}

TEST(Backoff, DoublesFromTheBaseAndStopsAtTheCap) {
  RetryPolicy p;
  p.base_ms = 500;
  p.max_wait_ms = 3000;
  EXPECT_EQ(backoff_ms(p, 1, std::nullopt), 500);
  EXPECT_EQ(backoff_ms(p, 2, std::nullopt), 1000);
  EXPECT_EQ(backoff_ms(p, 3, std::nullopt), 2000);
  EXPECT_EQ(backoff_ms(p, 4, std::nullopt), 3000);
  EXPECT_EQ(backoff_ms(p, 60, std::nullopt), 3000);
}

TEST(Backoff, RetryAfterWinsOverTheExponentialWait) {
  RetryPolicy p;
  p.base_ms = 500;
  EXPECT_EQ(backoff_ms(p, 3, 1200), 1200);
}

TEST(Retryable, RetriesRateLimitsServerErrorsAndMissingAnswersOnly) {
  auto with = [](int status) {
    HttpResponse r;
    r.status = status;
    return is_retryable(r);
  };
  EXPECT_TRUE(with(0));
  EXPECT_TRUE(with(429));
  EXPECT_TRUE(with(500));
  EXPECT_TRUE(with(503));
  EXPECT_TRUE(with(408));
  EXPECT_FALSE(with(400));
  EXPECT_FALSE(with(401));
  EXPECT_FALSE(with(404));
  EXPECT_FALSE(with(200));
}

}  // namespace
}  // namespace kbx::llm
