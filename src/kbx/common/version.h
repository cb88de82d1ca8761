// The kbx version and the git commit it was built from (refreshed at every build).
#pragma once

namespace kbx {

const char* version();     ///< "0.1.0"
const char* git_commit();  ///< `git describe --always --dirty`, or "unknown"

}  // namespace kbx
