#!/usr/bin/env bash
# One device call (session 25, issue 5): PyTorch eager against the contracts on the H200, all 176
# tasks, chunks of CHUNK draws from base seed SEED_BASE until BUDGET_S (tools/eager_seeds.sh with
# --no-output-cache, 12 jobs, 8 reference workers).
# usage: tune/h200_call_i.sh SEED_BASE [BUDGET_S (520)] [CHUNK (50)]
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
KBX=build-device/kbx JOBS="${JOBS:-12}" REF_WORKERS="${REF_WORKERS:-8}" SEED_BASE="$1" BUDGET_S="${2:-520}" \
  RESULTS=/tmp/seeds tools/eager_seeds.sh 1000 "${3:-50}" > "$OUT/seeds.txt" 2>&1
echo "exit $?"
grep -E "^chunk|^budget" "$OUT/seeds.txt"
grep -vE "^chunk|^budget" "$OUT/seeds.txt" | grep -v " ok \| [0-9]*/[0-9]* *[0-9]*$" | head -40
tail -3 "$OUT/seeds.txt"
