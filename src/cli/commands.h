// The kbx command line: `suite`, `eval`, `summary` (docs/cli.md).
#pragma once

namespace kbx::cli {

/// Parses argv, runs one command, prints errors, and returns the process exit code:
/// 0 success, 1 finished but some input was bad, 2 usage, 3 suite, 4 io/store, 5 worker, 70 internal.
int main(int argc, char** argv);

}  // namespace kbx::cli
