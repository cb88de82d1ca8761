#!/usr/bin/env bash
# Every test: set up and build with the ci preset (warnings are errors), then the GoogleTest units,
# the kbx_worker pytest suite and the end-to-end cases (real kbx, worker, PyTorch, Triton interpreter).
# Without arguments it then builds the asan preset and runs the C++ unit tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (KBX_SKIP_ASAN=1 skips that), and builds the fuzz
# preset and runs every libFuzzer target for 60 s in all, failing on a crash, leak or timeout
# (KBX_SKIP_FUZZ=1 skips that). Arguments are passed to the ci ctest and skip both. ctest runs one
# test per core, the longest first (tests/CMakeLists.txt COST), deadline-sensitive ones alone.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh ci
ctest --preset ci -j "$(nproc)" "$@"
if [ $# -eq 0 ] && [ -z "${KBX_SKIP_ASAN:-}" ]; then
  cmake --preset asan >/dev/null
  cmake --build build-asan -j "$(nproc)" --target kbx_units  # the units alone: no kbx binary
  ctest --test-dir build-asan -L unit -E '^python/' --output-on-failure -j "$(nproc)"
fi
if [ $# -eq 0 ] && [ -z "${KBX_SKIP_FUZZ:-}" ]; then
  tools/fuzz.sh all 60
fi
