// Small string helpers shared by the suite, submission and CLI code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbx {

std::string_view trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

/// Parses all of `text` as a decimal int (an optional '-', digits, nothing else; no overflow)
/// into `out`; false, leaving `out` as it was, otherwise.
bool parse_int(std::string_view text, int& out);

/// The length of the longest prefix of `text` that is well-formed UTF-8 (text.size() when all of
/// it is): no stray continuation bytes, overlong forms, surrogates or code points past U+10FFFF.
std::size_t utf8_valid_prefix(std::string_view text);

/// `text` made safe to print, store and write as JSON: bytes that are not well-formed UTF-8 and
/// control characters other than tab become "\xNN", and text longer than `max_bytes` is cut
/// there (on a character boundary) with "... (N bytes)" appended.
/// Example: printable("caf\xe9\n") == "caf\\xe9\\x0a".
std::string printable(std::string_view text, std::size_t max_bytes = 200);

/// Edit distance (insert, delete, substitute each cost 1).
std::size_t levenshtein(std::string_view a, std::string_view b);

/// Shell-style match of `text` against `pattern` with *, ? and [...]; '*' also crosses '/'.
bool glob_match(std::string_view pattern, std::string_view text);

/// Up to `limit` candidates closest to `needle` by edit distance (ties keep input order).
std::vector<std::string> closest(std::string_view needle, const std::vector<std::string>& candidates,
                                 std::size_t limit);

}  // namespace kbx
