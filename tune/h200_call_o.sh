#!/usr/bin/env bash
# The next device call after session 33, one background command (tune/h200_bg.sh start
# 'DEADLINE_S=1000 RUNS=2 DELTA_DRAWS=0 SEED_OFFSET=600 tune/h200_call_o.sh' 560):
# 1. tune/context_interference.py (about a minute): does another process creating its CUDA
#    context disturb a timing run? (session 33: the suite's gaps between timing holds are the
#    worker starts' shared holds, 65 s of 196.5 s);
# 2. tune/h200_call_k.sh: the 176 references timed twice (run 2 from the reference timing cache)
#    with `--timing-cpus spread`, the default since session 33 (its suite figures were taken with
#    `any`), each run's trace with the worker starts' own phases (tune/trace_gaps.py: gaps*.txt),
#    then the draws to DEADLINE_S.
#    START_HOLD=none times the suite with worker starts that take no GPU hold (`kbx eval
#    --worker-start-hold none`; tune/lock_sim.py --starters 8 --start-unheld on session 33's
#    trace: 151.8 s against 197.9 s with held starts, 196.5 s measured): only once step 1 has
#    shown that a context being created leaves a timing run's samples alone.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus context-interference.txt.
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
python3 tune/context_interference.py 6 12 >/tmp/k/context-interference.txt 2>&1
cat /tmp/k/context-interference.txt
TIMING_FIRST=1 TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40 --worker-start-hold ${START_HOLD:-shared}" \
  tune/h200_call_k.sh
