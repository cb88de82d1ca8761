#!/usr/bin/env bash
# One device call: all of solutions/ evaluated by kbx as one submission (issue 8's final table).
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
RESULTS=/tmp/sol-all timeout "${1:-560}" tools/h200_solutions.sh > "$OUT/sol_all.txt" 2>&1
tail -100 "$OUT/sol_all.txt"
cp /tmp/sol-all/work/run/kbx.db "$OUT/sol_all.db" 2>/dev/null
cp /tmp/sol-all/work/run/kbx-results.json "$OUT/sol_all.json" 2>/dev/null
