#!/usr/bin/env bash
# Session 42's device call, one background command (tune/h200_bg.sh start 'tune/h200_call_y.sh'
# 540, then wait/finish with '/tmp/k/*.txt'): the GPU-only exploits (3e868f6's 46 among them);
# then on an H200, issue 5's pending PyTorch eager draws of the 66 tasks in
# tune/h200_draws_pending.txt for DRAWS_S seconds (base seeds from SEED_BASE, 8000: a range no
# earlier run used), the table in /tmp/k/draws.txt; on any other card, tune/h200_call_w.sh (issue
# 7's offset and repeatability runs) with W_DRAWS_S seconds of the same draws after it.
source "$(dirname "$0")/device_prologue.sh"
# The GPU-only exploits first (3e868f6: 46_keep_results_by_identity, and 40-44 around it).
timeout 300 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
  --only 40,41,42,43,44,46,47,50,51,52 2>&1 | tail -n 12 | tee /tmp/k/exploits.txt
if grep -q H200 <<<"$gpu"; then
  KBX=build-device/kbx JOBS=12 REF_WORKERS=8 SEED_BASE="${SEED_BASE:-8000}" BUDGET_S="${DRAWS_S:-1400}" \
    tools/eager_seeds.sh 1000 50 $(grep -v "^#" tune/h200_draws_pending.txt) 2>&1 | tee /tmp/k/draws.txt
else
  DRAWS_S="${W_DRAWS_S:-}" SEED_BASE="${SEED_BASE:-8000}" tune/h200_call_w.sh
fi
