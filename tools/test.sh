#!/usr/bin/env bash
# Every test: set up and build with the ci preset (warnings are errors), then the GoogleTest units,
# the kbx_worker pytest suite and the end-to-end cases (real kbx, worker, PyTorch, Triton interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh ci
ctest --preset ci "$@"
