// Method names: what --method accepts and what the store's labels say.
#include "kbx/gen/generate.h"

#include <gtest/gtest.h>

namespace kbx::gen {
namespace {

TEST(Method, EveryMethodsNameParsesBackToIt) {
  for (Method m : {Method::one_shot, Method::best_of_k, Method::refine, Method::agents}) {
    auto parsed = parse_method(to_string(m));
    ASSERT_TRUE(parsed.has_value()) << to_string(m);
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_EQ(to_string(Method::best_of_k), "best-of-k");
}

TEST(Method, UnknownNamesAreRefused) {
  EXPECT_FALSE(parse_method("oneshot").has_value());
  EXPECT_FALSE(parse_method("").has_value());
  EXPECT_FALSE(parse_method("Refine").has_value());
}

}  // namespace
}  // namespace kbx::gen
