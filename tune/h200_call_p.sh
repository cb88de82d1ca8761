#!/usr/bin/env bash
# Session 35's second device call, one background command (tune/h200_bg.sh start
# 'tune/h200_call_p.sh' 560, then tune/h200_bg.sh finish), about 700 s:
# 1. a smoke run (about 20 s): three references as submissions with perf, stopped unless all are
#    ok: the kernel inventory now reads CUPTI's records once per workload, the perf recheck runs
#    the reference's and the candidate's calls at once (the reference's on a free reference
#    worker), a long GPU-bound call warms up in one call;
# 2. the 176 references timed three times (tune/h200_call_k.sh through
#    tools/h200_timing_cache.sh, `--timing-cpus spread`, `--warmup-ms 2 --ci-budget-ms 40`): run 1
#    fresh (the references timed into the cache), runs 2 and 3 from the cache, run 3 with
#    RUN_ARGS_3 (none by default now); then tune/start_overlap.py over each run (start-overlapN.txt).
# Session 35 ran it with RUN_ARGS_3="-j 12" on an H100 (tree d1ed0e9): 307.8 / 169.0 / 175.8 s;
# 12 jobs no faster and out of memory in three cases. Since then worker starts hold the GPU lock
# shared again (d1de615) and workers hand cached memory back after each request (89fd06c): the
# next call checks both (no GPU-bound workload slowed beside a start; no out-of-memory).
# Session 36 ran it twice at a30326b on H100s (held starts: 299.5 / 186.1 / 182.7 s, no
# out-of-memory; RUNS=2 RUN_ARGS_2="--worker-start-hold none": 311.8 / 169.7 s, 10 of 64
# workloads beside starts slowed, every one beside a start's cuda_context phase). Since 784a995 a
# start holds the lock only around its CUDA context: the next call checks that workloads timed
# beside the rest of a start (start-overlapN.txt's "starts beside", now by phase) stay at 0 slowed,
# and what the shorter holds save (gapsN.txt's "under their shared hold"; session 36's replay:
# 170 -> 160 s).
# Session 37 ran it at 3594d12 (265.0 / 158.9 / 159.9 s; no GPU-bound workload slowed beside the
# unheld part of a start) and at 5fa44f7 (one hardware queue per context: 276.0 / 151.4 / 146.9 s
# on a slower host); host-overlapN.txt now checks host-synchronising workloads against starts.
# env: RUNS (3), RUN_ARGS_3, SMOKE_TASKS.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus smoke.txt and start-overlap*.txt.
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
if ! tune/smoke_run.sh "${SMOKE_TASKS:-Activation/relu.py,Fusion/fused_exp_mean.py,LinearAlgebra/cholesky_solve.py}"; then
  echo "smoke run failed: not timing the suite"
  exit 1
fi
export RUN_ARGS_3="${RUN_ARGS_3-}"
SKIP_DRAWS=1 RUNS="${RUNS:-3}" TIMING_FIRST=1 TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40" \
  tune/h200_call_k.sh
R=/tmp/kbx-timing-cache
for ((i = 1; i <= ${RUNS:-3}; i++)); do
  [ -f "$R/trace$i.json" ] && python3 tune/start_overlap.py "$R/trace$i.json" "$R/run$i" \
    >/tmp/k/start-overlap$i.txt 2>&1 && head -n 4 /tmp/k/start-overlap$i.txt
  # Host-synchronising workloads against the starts' working phases (3907260: timed with the
  # starts held off the host, so none should be beside one) and the references timed again so.
  [ -f "$R/trace$i.json" ] && python3 tune/start_overlap.py "$R/trace$i.json" "$R/run$i" --host \
    >/tmp/k/host-overlap$i.txt 2>&1 && grep -E "^(host-sync|no start|starts beside)" /tmp/k/host-overlap$i.txt
  grep -h "taken again with worker starts" "$R/run$i.log" 2>/dev/null
done
for ((i = 1; i <= ${RUNS:-3}; i++)); do  # evaluations whose detail or perf note says out of memory
  python3 -c "import sqlite3, sys; print(sys.argv[1], 'out of memory:', sqlite3.connect(sys.argv[1]).execute(\"SELECT COUNT(*) FROM evaluations WHERE detail LIKE '%out of memory%' OR perf_note LIKE '%out of memory%'\").fetchone()[0])" "$R/run$i/kbx.db"
done 2>&1 | tee /tmp/k/out-of-memory.txt
