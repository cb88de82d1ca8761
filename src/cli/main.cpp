// kbx entry point: everything happens in cli::main, the one place that catches kbx::Error.
#include "cli/commands.h"

int main(int argc, char** argv) { return kbx::cli::main(argc, argv); }
