#!/usr/bin/env bash
# One command on a fresh machine: set up, build, and evaluate the bundled examples
# (on the GPU where there is one, else on the CPU through Triton's interpreter), printing the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh release
out="${1:-runs/examples}"
# The examples include one submission that hangs on purpose: 30 s per stage bounds its wait.
set +e
build/kbx eval examples -o "$out" --timeout 30
rc=$?
set -e
echo "quickstart: kbx eval exited with $rc; results in $out (try: build/kbx summary $out)"
exit "$rc"
