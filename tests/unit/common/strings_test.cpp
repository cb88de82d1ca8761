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

TEST(Utf8ValidPrefix, AcceptsAsciiAndWellFormedMultiByteText) {
  EXPECT_EQ(utf8_valid_prefix(""), 0U);
  EXPECT_EQ(utf8_valid_prefix("abc"), 3U);
  std::string text = "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80";  // é ✓ 😀
  EXPECT_EQ(utf8_valid_prefix(text), text.size());
}

TEST(Utf8ValidPrefix, StopsAtTheFirstByteThatIsNotWellFormed) {
  EXPECT_EQ(utf8_valid_prefix("caf\xe9!"), 3U);          // Latin-1 é
  EXPECT_EQ(utf8_valid_prefix("a\x80"), 1U);             // a stray continuation byte
  EXPECT_EQ(utf8_valid_prefix("a\xc0\x80"), 1U);         // an overlong NUL
  EXPECT_EQ(utf8_valid_prefix("ab\xed\xa0\x80"), 2U);    // a UTF-16 surrogate
  EXPECT_EQ(utf8_valid_prefix("\xf4\x90\x80\x80"), 0U);  // past U+10FFFF
  EXPECT_EQ(utf8_valid_prefix("ok\xe2\x9c"), 2U);        // cut in the middle of a character
  EXPECT_EQ(utf8_valid_prefix("\xff\xfe"), 0U);
}

TEST(Printable, EscapesBytesThatAreNotUtf8AndControlCharacters) {
  EXPECT_EQ(printable("caf\xc3\xa9\tok"), "caf\xc3\xa9\tok");
  EXPECT_EQ(printable("caf\xe9\n"), "caf\\xe9\\x0a");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\x7f"), "\\x7f");
  EXPECT_EQ(printable("\xff\xc0\x80\xed\xa0\x80"), "\\xff\\xc0\\x80\\xed\\xa0\\x80");
}

TEST(Printable, CutsLongTextOnACharacterBoundaryAndSaysHowLongItWas) {
  EXPECT_EQ(printable(std::string(10, 'x'), 4), "xxxx... (10 bytes)");
  EXPECT_EQ(printable("abc", 3), "abc");
  std::string checks;
  for (int i = 0; i < 100; ++i) {
    checks += "\xe2\x9c\x93";
  }
  std::string cut = printable(checks, 10);
  EXPECT_EQ(cut, "\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93... (300 bytes)");
  EXPECT_EQ(utf8_valid_prefix(cut), cut.size());
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

TEST(ParseInt, TakesAllOfTheTextOrNothing) {
  int v = 7;
  EXPECT_TRUE(parse_int("42", v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_int("-3", v));
  EXPECT_EQ(v, -3);
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "99999999999", "-"}) {
    v = 7;
    EXPECT_FALSE(parse_int(bad, v)) << bad;
    EXPECT_EQ(v, 7) << bad;  // untouched
  }
}

}  // namespace
}  // namespace kbx
