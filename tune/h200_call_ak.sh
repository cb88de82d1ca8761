#!/usr/bin/env bash
# The next session's device call (session 47's plan), one background command on any card:
# `DRAWS_S=1000 tune/h200_bg.sh start 'tune/h200_call_ak.sh' 540` (carry .device), then `wait` /
# `finish 5 '/tmp/k/*.txt'`, and `tune/h200_bg.sh stop` before timing anything else.
# - 60d0aba's provenance rule (work out of the dispatch mode's sight, uninitialised buffers,
#   storages held alive) on a GPU for the first time: the zoo's honest control and the copy
#   exploits 48, 49, 53, 54, then every model kernel without perf (no correct one may read
#   not_triton), then the expert kernels;
# - on an H200, issue 5's pending eager draws (73 tasks, tune/h200_draws_pending.txt; SEED_BASE
#   8000 still unused on an H200) for DRAWS_S seconds; on another card 400 more H100 draws
#   (SEED_BASE 8508 on: 8500-8507 ran in session 47).
source "$(dirname "$0")/device_prologue.sh"
timeout 150 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
  --only 00,48,49,53,54 2>&1 | tail -n 7 | tee /tmp/k/exploits.txt
timeout 420 python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 \
  --device cuda --no-perf --jobs 4 --work /tmp/mk 2>&1 | grep -E "^!|as expected" \
  | tee /tmp/k/model-kernels.txt
timeout 300 python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 \
  --device cuda --no-perf --jobs 4 --work /tmp/mks --dir solutions 2>&1 | grep -E "^!|as expected" \
  | tee -a /tmp/k/model-kernels.txt
if grep -q H200 <<<"$gpu"; then base="${SEED_BASE:-8000}"; else base="${SEED_BASE:-8508}"; fi
KBX=build-device/kbx JOBS=12 REF_WORKERS=8 SEED_BASE="$base" BUDGET_S="${DRAWS_S:-1000}" \
  tools/eager_seeds.sh 1000 50 $(grep -v "^#" tune/h200_draws_pending.txt) 2>&1 | tee /tmp/k/draws.txt
