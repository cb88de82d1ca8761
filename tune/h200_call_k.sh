#!/usr/bin/env bash
# Session 29's device run, one background command (tune/h200_bg.sh start 'tune/h200_call_k.sh'):
# 1. issue 5: PyTorch eager over 1,000 draws on the H200 of what changed since session 27's draws
#    (tree e605e02): the cases sessions 27-28 added or changed (tune/session29_cases.txt, in the
#    tasks of tune/session29_tasks.txt; `kbx suite check --cases`), and every case of
#    LinearAlgebra/svd (its backward-error rule), Optimizer/Adam (judged by step() now) and the nine
#    dropout tasks (their masks' independence test);
# 2. issues 5 and 7: the 176 references as submissions, RUNS runs with fresh Triton and compile
#    caches and one reference timing cache (tools/h200_timing_cache.sh: run 1 times the references
#    into it, later runs read them back), each with --trace and TIMING_ARGS (sampling flags), then
#    tools/repeatability.py, tools/trace_summary.py and tune/timing_profile.py after each run.
#    Writes /tmp/k/* and /tmp/k-texts.tar.xz; a finish call copies /tmp/k-texts.tar.xz /tmp/k/*.xz.
# (tools/h200_timing_cache.sh calls `tune/h200_call_k.sh --after-run R I` after each timing run.)
#   env: SKIP_DRAWS=1 (timing only), SKIP_TIMING=1 (draws only: the H200 draws issue 5 still
#        needs, about 1,700 s with DEADLINE_S and two or three calls), DRAWS (1000), RUNS (2), TIMING_ARGS, TIMING_FIRST=1 (the timing
#        runs before the draws), DEADLINE_S (the draws start no chunk that would end later),
#        SEED_OFFSET (added to every base seed: session 29 used 0, and 50 and 100 by hand, session
#        30 used 200, so the next draws take SEED_OFFSET=300 or more), CHUNK_DELTA (100),
#        CHUNK_WHOLE (50), DELTA_DRAWS (DRAWS; 0: the whole tasks only), ASYM=1 (first
#        tune/host_asymmetry.sh, its files in /tmp/k/host-asym.tar.xz)
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k
t0=${K_T0:-$(date +%s)}  # the script's start, also in the --after-run calls it makes
export K_T0=$t0 KBX=build-device/kbx KBX_PYTHON=python3
draws() {
  if [ -z "${SKIP_DRAWS:-}" ]; then
    # The whole tasks are a few evaluations a chunk (one per task), so four runs of a quarter of the
    # draws each (their own base seeds) go beside the delta's 53 tasks.
    # DEADLINE_S: the draws stop starting chunks that would end past this many seconds from the
    # script's start (eager_seeds.sh's BUDGET_S), so their tables count what ran.
    local budget=""
    [ -n "${DEADLINE_S:-}" ] && budget=$(( DEADLINE_S - ($(date +%s) - t0) ))
    q=$(( ${DRAWS:-1000} / 4 ))
    for p in 0 1 2 3; do
      BUDGET_S=$budget JOBS=4 REF_WORKERS=2 SEED_BASE=$((7100 + ${SEED_OFFSET:-0} + p * 10)) RESULTS=/tmp/seeds-whole$p \
        tools/eager_seeds.sh "$q" "${CHUNK_WHOLE:-50}" LinearAlgebra/svd.py Optimizer/Adam.py 'Fusion/*dropout*' \
        Fusion/fused_transformer_block.py >/tmp/k/seeds-whole$p.txt 2>&1 &
    done
    if [ "${DELTA_DRAWS:-${DRAWS:-1000}}" != 0 ]; then
      BUDGET_S=$budget CASES="$(cat tune/session29_cases.txt)" JOBS=8 REF_WORKERS=4 SEED_BASE=$((7000 + ${SEED_OFFSET:-0})) RESULTS=/tmp/seeds-delta \
        tools/eager_seeds.sh "${DELTA_DRAWS:-${DRAWS:-1000}}" "${CHUNK_DELTA:-100}" $(cat tune/session29_tasks.txt) >/tmp/k/seeds-delta.txt 2>&1
      echo "delta draws: exit $?, $(( $(date +%s) - t0 )) s"; tail -4 /tmp/k/seeds-delta.txt
    fi
    wait
    echo "whole-task draws: $(( $(date +%s) - t0 )) s"; tail -n 4 /tmp/k/seeds-whole*.txt
    tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
  fi
}

timing() {
  # tools/h200_timing_cache.sh, each run's summaries and files ready as soon as it ends (a finish
  # call may come before the last run does).
  local R=/tmp/kbx-timing-cache
  RESULTS=$R RUNS="${RUNS:-2}" EVAL_ARGS="--trace $R/trace@RUN@.json ${TIMING_ARGS:-}" \
    AFTER_RUN="tune/h200_call_k.sh --after-run $R @RUN@" tools/h200_timing_cache.sh | tee -a /tmp/k/repeat.txt
}

after_run() {  # R I: run I's repeatability (runs 1..I), trace summary, profile and files
  local R=$1 i=$2 dirs=()
  for ((j = 1; j <= i; j++)); do dirs+=("$R/run$j"); done
  python3 tools/repeatability.py "${dirs[@]}" >/tmp/k/repeatability.txt 2>&1
  # each time request's task, GPU clock and median per workload (the worker logs; since 1978d6c)
  grep -h "time request:" $R/run$i/work/logs/* >/tmp/k/requests$i.txt 2>/dev/null
  python3 tune/request_clocks.py /tmp/k/requests*.txt >/tmp/k/request-clocks.txt 2>&1
  # the same from the traces, candidates included (session 33: their logs are deleted)
  python3 tune/request_clocks.py $R/trace1.json $R/trace$i.json >/tmp/k/trace-clocks$i.txt 2>&1
  python3 tools/trace_summary.py $R/trace$i.json >/tmp/k/trace$i.txt 2>&1
  python3 tune/trace_gaps.py $R/trace$i.json --min-gap-s 1.0 >/tmp/k/gaps$i.txt 2>&1  # session 33
  python3 tune/timing_profile.py $R/trace$i.json $R/run$i/kbx.db >/tmp/k/profile$i.txt 2>&1
  xz -T4 -c $R/run$i/kbx.db >/tmp/k/run$i.db.xz 2>/dev/null
  xz -T4 -c $R/trace$i.json >/tmp/k/trace$i.json.xz 2>/dev/null
  tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
  echo "timing run $i done: $(( $(date +%s) - t0 )) s"
}

if [ "${1:-}" = --after-run ]; then after_run "$2" "$3"; exit 0; fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [ -n "${ASYM:-}" ]; then  # session 30's host-bound asymmetry first (a few minutes)
  RESULTS=/tmp/kbx-host-asym tune/host_asymmetry.sh >/tmp/k/host-asym.txt 2>&1
  cp /tmp/kbx-host-asym/topology.txt /tmp/k/host-asym-topology.txt
  tar -C /tmp/kbx-host-asym -cJf /tmp/k/host-asym.tar.xz --exclude='*/work' --exclude='*.db-*' .
  echo "host asymmetry: $(( $(date +%s) - t0 )) s"; tail -8 /tmp/k/host-asym.txt
fi
if [ -n "${SKIP_TIMING:-}" ]; then draws
elif [ -n "${TIMING_FIRST:-}" ]; then timing; draws
else draws; timing; fi
ls -la /tmp/k
cat /tmp/k/repeatability.txt
