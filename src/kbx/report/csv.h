// csv_field: one RFC 4180 field, quoted when it holds a comma, a quote or a line break.
#pragma once

#include <string>

namespace kbx::report {

/// `a,b` -> `"a,b"`, `say "hi"` -> `"say ""hi"""`; anything else unchanged.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (char c : s) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

}  // namespace kbx::report
