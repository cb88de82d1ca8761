#!/usr/bin/env bash
# One device call (session 24, issue 5): PyTorch eager against the contracts on the H200, all 176
# tasks, in chunks of CHUNK draws until BUDGET_S (tools/eager_seeds.sh), to measure how many draws
# a device call covers and that none fails.
# usage: tune/h200_call_g.sh [BUDGET_S (480)] [CHUNK (2)]
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
KBX=build-device/kbx JOBS="${JOBS:-12}" BUDGET_S="${1:-480}" RESULTS=/tmp/seeds \
  tools/eager_seeds.sh 1000 "${2:-2}" > "$OUT/seeds.txt" 2>&1
echo "exit $?"
grep -E "^chunk|^budget" "$OUT/seeds.txt" | tail -4
grep -vE "^chunk|^budget" "$OUT/seeds.txt" | grep -v " ok \| [0-9]*/[0-9]* *[0-9]*$" | head -40
tail -3 "$OUT/seeds.txt"
