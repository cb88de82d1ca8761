#!/usr/bin/env bash
# The next device call after session 33, one background command (tune/h200_bg.sh start
# 'tune/h200_call_o.sh' 560), about 850 s:
# 1. tune/context_interference.py (about a minute): does another process creating its CUDA
#    context disturb a timing run? (session 33: the suite's gaps between timing holds are the
#    worker starts' shared holds, 65 s of 196.5 s);
# 2. tune/inventory_cost.py (seconds): what a workload's kernel inventory costs and where (18.8 s
#    of the candidates' 121 s under the exclusive hold in session 33);
# 3. tune/h200_call_k.sh: the 176 references timed RUNS (3) times (run 1 fills the reference
#    timing cache, the later runs read it) with `--timing-cpus spread`, the default since session
#    33 (its suite figures were taken with `any`), each run's trace with the worker starts' own
#    phases (tune/trace_gaps.py: gaps*.txt). Run 3 (RUN_ARGS_3) starts its workers without a GPU
#    hold (`--worker-start-hold none`; tune/lock_sim.py --starters 8 --start-unheld on session
#    33's trace: 151.8 s against 197.9 s with held starts, 196.5 s measured): its wall against
#    run 2's, and its repeatability against runs 1-2 next to step 1's answer, decide the default.
#    No draws (SKIP_DRAWS=1 unless set).
# env: CI_ROUNDS (step 1's rounds, 12), RUNS, RUN_ARGS_<I>, START_HOLD, SKIP_DRAWS.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus context-interference.txt and
# inventory-cost.txt.
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
python3 tune/context_interference.py 6 "${CI_ROUNDS:-12}" >/tmp/k/context-interference.txt 2>&1
cat /tmp/k/context-interference.txt
KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so python3 tune/inventory_cost.py 30 >/tmp/k/inventory-cost.txt 2>&1
cat /tmp/k/inventory-cost.txt
export RUN_ARGS_3="${RUN_ARGS_3---worker-start-hold none}"
SKIP_DRAWS="${SKIP_DRAWS-1}" RUNS="${RUNS:-3}" TIMING_FIRST=1 \
  TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40 --worker-start-hold ${START_HOLD:-shared}" \
  tune/h200_call_k.sh
