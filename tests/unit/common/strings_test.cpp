// Tests of the string helpers: trim, split, levenshtein, glob_match and closest.
#include "kbx/common/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbx {
namespace {

using Strings = std::vector<std::string>;

TEST(Trim, RemovesLeadingAndTrailingWhitespaceOnly) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("x"), "x");
  EXPECT_EQ(trim(" \t\n "), "");
  EXPECT_EQ(trim(""), "");
}

TEST(Split, KeepsEmptyFields) {
  EXPECT_EQ(split("a,b,,c", ','), (Strings{"a", "b", "", "c"}));
  EXPECT_EQ(split("a,", ','), (Strings{"a", ""}));
  EXPECT_EQ(split(",a", ','), (Strings{"", "a"}));
}

TEST(Split, ReturnsOneFieldWhenTheSeparatorIsAbsent) {
  EXPECT_EQ(split("abc", ','), (Strings{"abc"}));
  EXPECT_EQ(split("", ','), (Strings{""}));
}

TEST(Levenshtein, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(levenshtein("kitten", "sitting"), 3U);
  EXPECT_EQ(levenshtein("flaw", "lawn"), 2U);
  EXPECT_EQ(levenshtein("softmax", "softmax"), 0U);
  EXPECT_EQ(levenshtein("", "abc"), 3U);
  EXPECT_EQ(levenshtein("abc", ""), 3U);
  EXPECT_EQ(levenshtein("ab", "ba"), 2U);
}

TEST(GlobMatch, StarMatchesAnyRunIncludingSlashesAndNothing) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*", "Math/softmax.py"));
  EXPECT_TRUE(glob_match("Math/*", "Math/softmax.py"));
  EXPECT_TRUE(glob_match("*softmax*", "Math/softmax.py"));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYc"));
  EXPECT_TRUE(glob_match("*ab", "aab"));
  EXPECT_FALSE(glob_match("*.py", "x.pyc"));
  EXPECT_FALSE(glob_match("Math/*", "Loss/mse_loss.py"));
}

TEST(GlobMatch, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(glob_match("Math/soft?ax.py", "Math/softmax.py"));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_FALSE(glob_match("a?", "a"));
  EXPECT_FALSE(glob_match("a?", "abc"));
}

TEST(GlobMatch, WithoutWildcardsMatchesOnlyTheWholeText) {
  EXPECT_TRUE(glob_match("Math/softmax.py", "Math/softmax.py"));
  EXPECT_FALSE(glob_match("Math/softmax", "Math/softmax.py"));
  EXPECT_FALSE(glob_match("Math/softmax.py", "Math/softmax"));
}

TEST(GlobMatch, BracketsMatchAListOrARangeOfCharacters) {
  EXPECT_TRUE(glob_match("[MR]*", "Math/softmax.py"));
  EXPECT_TRUE(glob_match("[MR]*", "Reduce/sum.py"));
  EXPECT_FALSE(glob_match("[MR]*", "Loss/mse_loss.py"));
  EXPECT_TRUE(glob_match("x[a-c]", "xb"));
  EXPECT_FALSE(glob_match("x[a-c]", "xd"));
  EXPECT_TRUE(glob_match("x[a-]", "x-"));
  EXPECT_TRUE(glob_match("[]]", "]"));
}

TEST(GlobMatch, BangOrCaretNegatesABracket) {
  EXPECT_TRUE(glob_match("[!M]*", "Loss/mse_loss.py"));
  EXPECT_FALSE(glob_match("[!M]*", "Math/softmax.py"));
  EXPECT_TRUE(glob_match("[^a-c]", "d"));
  EXPECT_FALSE(glob_match("[^a-c]", "b"));
  EXPECT_FALSE(glob_match("[!a]", ""));
}

TEST(Closest, OrdersCandidatesByEditDistance) {
  Strings candidates{"relu", "softmax", "softplus", "matmul"};
  EXPECT_EQ(closest("sofmax", candidates, 2), (Strings{"softmax", "softplus"}));
}

TEST(Closest, KeepsInputOrderForTies) {
  Strings candidates{"abd", "abc", "abe"};
  EXPECT_EQ(closest("abx", candidates, 3), (Strings{"abd", "abc", "abe"}));
}

TEST(Closest, ReturnsAtMostLimitAndAtMostEveryCandidate) {
  Strings candidates{"a", "b"};
  EXPECT_EQ(closest("a", candidates, 1), (Strings{"a"}));
  EXPECT_EQ(closest("a", candidates, 5).size(), 2U);
  EXPECT_TRUE(closest("a", {}, 3).empty());
}

}  // namespace
}  // namespace kbx
