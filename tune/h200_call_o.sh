#!/usr/bin/env bash
# The next device call (written in session 33, run in part in session 34), one background command
# (tune/h200_bg.sh start 'tune/h200_call_o.sh' 560), about 850 s:
# 1. tune/context_interference.py (about a minute): does another process creating its CUDA
#    context disturb a timing run? (session 34 on an H100: no, so worker starts take no GPU hold
#    by default since then; CI_ROUNDS=0 skips it);
# 2. tune/inventory_cost.py (seconds): what a workload's kernel inventory costs and where
#    (session 34 on an H100: 2.6-2.8 ms for three calls, 0.66-0.85 ms read once);
# 3. tune/h200_call_k.sh: the 176 references timed RUNS (3) times (run 1 fills the reference
#    timing cache, the later runs read it) with `--timing-cpus spread` (the default since session
#    33) and unheld worker starts (the default since session 34), each run's trace with the
#    worker starts' own phases (tune/trace_gaps.py: gaps*.txt). Run 3 (RUN_ARGS_3) holds the
#    starts shared as before session 34 (`--worker-start-hold shared`): run 2's wall against run
#    3's is what the default saved (tune/lock_sim.py's replay of session 33: 151.8 s against
#    197.9 s), their repeatability against run 1's what it cost (nothing, by step 1).
#    No draws (SKIP_DRAWS=1 unless set).
# env: CI_ROUNDS (step 1's rounds, 12; 0 skips it), RUNS, RUN_ARGS_<I>, START_HOLD (every run's
#      --worker-start-hold), SKIP_DRAWS.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus context-interference.txt and
# inventory-cost.txt.
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
if [ "${CI_ROUNDS:-12}" != 0 ]; then
  python3 tune/context_interference.py 6 "${CI_ROUNDS:-12}" >/tmp/k/context-interference.txt 2>&1
  cat /tmp/k/context-interference.txt
fi
KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so python3 tune/inventory_cost.py 30 >/tmp/k/inventory-cost.txt 2>&1
cat /tmp/k/inventory-cost.txt
export RUN_ARGS_3="${RUN_ARGS_3---worker-start-hold shared}"
SKIP_DRAWS="${SKIP_DRAWS-1}" RUNS="${RUNS:-3}" TIMING_FIRST=1 \
  TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40${START_HOLD:+ --worker-start-hold $START_HOLD}" \
  tune/h200_call_k.sh
