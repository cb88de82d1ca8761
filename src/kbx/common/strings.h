// Small string helpers shared by the suite, submission and CLI code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbx {

std::string_view trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

/// Edit distance (insert, delete, substitute each cost 1).
std::size_t levenshtein(std::string_view a, std::string_view b);

/// Shell-style match of `text` against `pattern` with *, ? and [...]; '*' also crosses '/'.
bool glob_match(std::string_view pattern, std::string_view text);

/// Up to `limit` candidates closest to `needle` by edit distance (ties keep input order).
std::vector<std::string> closest(std::string_view needle, const std::vector<std::string>& candidates,
                                 std::size_t limit);

}  // namespace kbx
