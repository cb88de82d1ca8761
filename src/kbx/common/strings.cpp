// String helpers.
#include "kbx/common/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <numeric>

namespace kbx {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) {
    s.remove_suffix(1);
  }
  return s;
}

bool parse_int(std::string_view text, int& out) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return false;
  }
  out = value;
  return true;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) {
      return out;
    }
    start = end + 1;
  }
}

namespace {

/// The length of the well-formed UTF-8 sequence at the start of `text`, or 0 if there is none.
std::size_t utf8_sequence_length(std::string_view text) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t n = b0 >= 0xC2 && b0 <= 0xDF   ? 2
                  : b0 >= 0xE0 && b0 <= 0xEF ? 3
                  : b0 >= 0xF0 && b0 <= 0xF4 ? 4
                                             : 0;
  if (n == 0 || text.size() < n) {
    return 0;
  }
  // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
  unsigned char lo = b0 == 0xE0 ? 0xA0 : b0 == 0xF0 ? 0x90 : 0x80;
  unsigned char hi = b0 == 0xED ? 0x9F : b0 == 0xF4 ? 0x8F : 0xBF;
  if (byte(1) < lo || byte(1) > hi) {
    return 0;
  }
  for (std::size_t i = 2; i < n; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) {
      return 0;
    }
  }
  return n;
}

}  // namespace

std::size_t utf8_valid_prefix(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t n = utf8_sequence_length(text.substr(at));
    if (n == 0) {
      return at;
    }
    at += n;
  }
  return at;
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size() && out.size() < max_bytes) {
    std::size_t n = utf8_sequence_length(text.substr(at));
    auto b = static_cast<unsigned char>(text[at]);
    if (n == 0 || (n == 1 && b < 0x20 && b != '\t') || b == 0x7F) {
      out += fmt::format("\\x{:02x}", b);
      at += 1;
    } else {
      out.append(text.substr(at, n));
      at += n;
    }
  }
  if (at < text.size()) {
    out += fmt::format("... ({} bytes)", text.size());
  }
  return out;
}

std::size_t levenshtein(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

bool class_match(std::string_view pattern, std::size_t& p, char c) {
  // pattern[p] == '['; on return p is past the closing ']'.
  std::size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) {
    ++i;
  }
  bool matched = false;
  bool first = true;
  for (; i < pattern.size() && (first || pattern[i] != ']'); ++i, first = false) {
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      matched = matched || (pattern[i] <= c && c <= pattern[i + 2]);
      i += 2;
    } else {
      matched = matched || pattern[i] == c;
    }
  }
  p = i + 1;
  return matched != negate;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star_p = std::string_view::npos;
  std::size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < pattern.size() && pattern[p] == '[') {
      std::size_t next = p;
      if (class_match(pattern, next, text[t])) {
        p = next;
        ++t;
        continue;
      }
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
      continue;
    }
    if (star_p == std::string_view::npos) {
      return false;
    }
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

std::vector<std::string> closest(std::string_view needle, const std::vector<std::string>& candidates,
                                 std::size_t limit) {
  std::vector<std::pair<std::size_t, std::size_t>> scored;
  scored.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    scored.emplace_back(levenshtein(needle, candidates[i]), i);
  }
  std::stable_sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) {
    out.push_back(candidates[scored[i].second]);
  }
  return out;
}

}  // namespace kbx
