// Placeholder until the commands land.
#include "cli/commands.h"

namespace kbx::cli {
int main(int, char**) { return 0; }
}  // namespace kbx::cli
