// The project's JSON type: nlohmann::ordered_json keeps key order, so files round-trip readably.
#pragma once

#include <nlohmann/json.hpp>

namespace kbx {

using Json = nlohmann::ordered_json;

}  // namespace kbx
