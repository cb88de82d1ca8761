// The kbx version and the git commit it was built from (refreshed at every build).
#pragma once

#include <string>

namespace kbx {

const char* version();     ///< "0.1.0"
const char* git_commit();  ///< `git describe --always --dirty`, or "unknown"

/// "0.1.0 (2a48fcd4ba39)": what sessions record and `--version` prints.
std::string version_string();

}  // namespace kbx
