// percent_text: a pass rate as report tables print it.
#pragma once

#include <string>

#include <fmt/format.h>

namespace kbx::report {

/// 3 of 8 -> "37.5%"; "-" when there is nothing to count.
inline std::string percent_text(int n, int total) {
  return total > 0 ? fmt::format("{:.1f}%", 100.0 * n / total) : std::string("-");
}

}  // namespace kbx::report
