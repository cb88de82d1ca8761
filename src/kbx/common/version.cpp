// The version string shared by `--version` and the sessions kbx records.
#include "kbx/common/version.h"

#include <fmt/format.h>

namespace kbx {

std::string version_string() { return fmt::format("{} ({})", version(), git_commit()); }

}  // namespace kbx
