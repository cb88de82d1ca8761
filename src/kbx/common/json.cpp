// Parsing JSON that comes from outside kbx (submissions, task.json, worker frames).
#include "kbx/common/json.h"

#include <algorithm>

#include "kbx/common/strings.h"

namespace kbx {

std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (escaped) {
      escaped = false;
    } else if (in_string) {
      escaped = c == '\\';
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_after) {
        return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<Json> parse_untrusted_json(std::string_view text) {
  if (json_nesting_depth(text) > max_json_depth) {
    return Error(ErrorKind::input, "arrays and objects nested deeper than {} levels",
                 max_json_depth);
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    return Error(ErrorKind::input, printable(e.what(), 300));
  }
}

}  // namespace kbx
