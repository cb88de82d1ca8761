// Tests of parsing untrusted JSON: the nesting limit and errors instead of exceptions.
#include "kbx/common/json.h"

#include <gtest/gtest.h>

#include <string>

#include "kbx/common/strings.h"
#include "support/test_support.h"

namespace kbx {
namespace {

TEST(JsonNestingDepth, CountsArraysAndObjectsButNotBracketsInStrings) {
  EXPECT_EQ(json_nesting_depth("1"), 0U);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": []}]})"), 4U);
  EXPECT_EQ(json_nesting_depth(R"(["[[[{{{", "\"[[[", "\\", [2]])"), 2U);
  EXPECT_EQ(json_nesting_depth("]]]][[]"), 2U);  // unbalanced text: the parser will say so
}

TEST(JsonNestingDepth, StopsCountingPastTheLimitItIsGiven) {
  EXPECT_EQ(json_nesting_depth(std::string(1'000'000, '['), 10), 11U);
}

TEST(ParseUntrustedJson, ParsesNestingUpToTheLimit) {
  std::string text = std::string(max_json_depth, '[') + std::string(max_json_depth, ']');
  auto j = parse_untrusted_json(text);
  ASSERT_TRUE(j.ok()) << j.error().what();
  EXPECT_TRUE(j->is_array());
}

// Found by tests/e2e/cases/input/deep_nesting.case: a deep value followed by another key made
// ordered_json copy the value recursively when the object grew, and kbx died of a stack overflow.
TEST(ParseUntrustedJson, RefusesDeeperNestingWithoutTouchingTheStack) {
  for (std::size_t depth : {max_json_depth + 1, std::size_t{100'000}}) {
    std::string text =
        R"({"predict": )" + std::string(depth, '[') + std::string(depth, ']') + R"(, "file": "x"})";
    auto j = parse_untrusted_json(text);
    ASSERT_FALSE(j.ok());
    EXPECT_EQ(j.error().kind(), ErrorKind::input);
    EXPECT_CONTAINS(j.error().what(), "nested deeper than 128 levels");
  }
}

TEST(ParseUntrustedJson, ANumberPastDoubleRangeIsAnErrorNotAnException) {
  auto j = parse_untrusted_json(R"({"n": 1e400})");
  ASSERT_FALSE(j.ok());
  EXPECT_CONTAINS(j.error().what(), "number overflow");
}

TEST(ParseUntrustedJson, ErrorsArePrintableAndShort) {
  auto j = parse_untrusted_json("\"" + std::string(50'000, 'x') + "\x01\xff");
  ASSERT_FALSE(j.ok());
  std::string why = j.error().what();
  EXPECT_EQ(utf8_valid_prefix(why), why.size());
  EXPECT_LT(why.size(), 400U);
}

TEST(JsonInteger, ReturnsIntegersTheTypeCanHold) {
  EXPECT_EQ(json_integer<int>(Json(42)), 42);
  EXPECT_EQ(json_integer<int>(Json(-7)), -7);
  EXPECT_EQ(json_integer<std::uint64_t>(Json(std::uint64_t{1} << 63)), std::uint64_t{1} << 63);
  EXPECT_EQ(json_integer<std::int64_t>(Json(std::int64_t{-1} << 62)), std::int64_t{-1} << 62);
}

// nlohmann's get<T>() casts a float or an out-of-range number unchecked: undefined behaviour.
TEST(JsonInteger, RefusesFloatsOutOfRangeNumbersAndOtherTypes) {
  EXPECT_EQ(json_integer<std::uint64_t>(Json(2.4e107)), std::nullopt);
  EXPECT_EQ(json_integer<int>(Json(1.0)), std::nullopt);
  EXPECT_EQ(json_integer<int>(Json(std::int64_t{1} << 40)), std::nullopt);
  EXPECT_EQ(json_integer<std::int64_t>(Json(std::uint64_t{1} << 63)), std::nullopt);
  EXPECT_EQ(json_integer<std::uint64_t>(Json(-1)), std::nullopt);
  EXPECT_EQ(json_integer<int>(Json(true)), std::nullopt);
  EXPECT_EQ(json_integer<int>(Json("3")), std::nullopt);
  EXPECT_EQ(json_integer<int>(Json()), std::nullopt);
}

}  // namespace
}  // namespace kbx
