// The project's JSON type: nlohmann::ordered_json keeps key order, so files round-trip readably.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "kbx/common/result.h"

namespace kbx {

using Json = nlohmann::ordered_json;

/// The deepest nesting of arrays and objects that JSON input may have. nlohmann parses and destroys
/// any depth, but copies and dumps recurse, and ordered_json copies an object's earlier values when
/// it grows: 100,000 nested arrays overflowed the stack (found by tests/e2e/cases/input).
constexpr std::size_t max_json_depth = 128;

/// How deep arrays and objects nest in `text` (brackets inside strings do not count), stopping
/// early once past `stop_after`. Linear; parses nothing else.
std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after = max_json_depth);

/// Parses JSON text from outside kbx: Json::parse, but text nested deeper than max_json_depth is
/// refused first. Errors (kind input) give the reason in one printable line of at most about 300
/// bytes; the caller adds where the text came from. Never throws for any input.
Result<Json> parse_untrusted_json(std::string_view text);

/// `j` as the integer type T when it is a JSON integer that T can hold; nullopt for anything else
/// (a float, a bool, a string, an integer out of T's range). Use it on untrusted JSON instead of
/// j.get<T>(), which casts a float or an out-of-range number unchecked: undefined behaviour
/// (found by fuzz/worker_reply_fuzz.cpp: {"offset": 2.4e107}).
template <std::integral T>
std::optional<T> json_integer(const Json& j) {
  if (j.is_number_unsigned()) {
    auto v = j.get<std::uint64_t>();
    return std::in_range<T>(v) ? std::optional<T>(static_cast<T>(v)) : std::nullopt;
  }
  if (j.is_number_integer()) {
    auto v = j.get<std::int64_t>();
    return std::in_range<T>(v) ? std::optional<T>(static_cast<T>(v)) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kbx
