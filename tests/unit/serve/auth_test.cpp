// Loopback detection and the bearer-token check.
#include "kbx/serve/auth.h"

#include <gtest/gtest.h>

namespace kbx::serve {
namespace {

TEST(Auth, LoopbackIsOnlyWhatThisMachineAloneCanReach) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("10.0.0.5"));
  EXPECT_FALSE(is_loopback("::"));
  EXPECT_FALSE(is_loopback("example.org"));
}

TEST(Auth, WithoutATokenEveryRequestPasses) {
  EXPECT_TRUE(bearer_matches("", ""));
  EXPECT_TRUE(bearer_matches("Bearer anything", ""));
}

TEST(Auth, WithATokenOnlyTheExactBearerHeaderPasses) {
  EXPECT_TRUE(bearer_matches("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(bearer_matches("", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer s3cretX", "s3cret"));
  EXPECT_FALSE(bearer_matches("bearer s3cret", "s3cret"));
  EXPECT_FALSE(bearer_matches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer S3cret", "s3cret"));
}

}  // namespace
}  // namespace kbx::serve
