#!/usr/bin/env bash
# Session 35's second device call, one background command (tune/h200_bg.sh start
# 'tune/h200_call_p.sh' 560, then tune/h200_bg.sh finish), about 700 s:
# 1. a smoke run (about 20 s): three references as submissions with perf, stopped unless all are
#    ok: the kernel inventory now reads CUPTI's records once per workload, the perf recheck runs
#    the reference's and the candidate's calls at once (the reference's on a free reference
#    worker), a long GPU-bound call warms up in one call;
# 2. the 176 references timed three times (tune/h200_call_k.sh through
#    tools/h200_timing_cache.sh, `--timing-cpus spread`, unheld worker starts, `--warmup-ms 2
#    --ci-budget-ms 40`): run 1 fresh (the references timed into the cache), runs 2 and 3 from the
#    cache, run 3 with RUN_ARGS_3 (default `-j 12`: tune/lock_sim.py's replay of session 35's first
#    call gives 151.3 s against 156.6 s for 8 jobs). Session 35's first call (an H100, the same
#    steps at 858e209): 279.2 / 170.3 s, and 192.6 s with shared worker-start holds.
# env: RUNS (3), RUN_ARGS_3, SMOKE_TASKS.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus smoke.txt.
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
s=/tmp/smoke
rm -rf "$s" && mkdir -p "$s"
python3 tools/references_as_submissions.py "$s/refs.jsonl" \
  --tasks "${SMOKE_TASKS:-Activation/relu.py,Fusion/fused_exp_mean.py,LinearAlgebra/cholesky_solve.py}"
want=$(wc -l <"$s/refs.jsonl")
KBX_CACHE_DIR="$s/cache" TRITON_CACHE_DIR="$s/triton" KBX_PYTHON=python3 build-device/kbx eval \
  "$s/refs.jsonl" -o "$s/run" --device cuda --no-require-triton --trace "$s/trace.json" \
  --warmup-ms 2 --ci-budget-ms 40 >"$s/log.txt" 2>&1
rc=$?
ok=$(sed -n 's/^Outcomes:.*\bok \([0-9]*\).*/\1/p' "$s/log.txt")
{ echo "smoke: exit $rc, $ok of $want ok, $(( $(date +%s) - K_T0 )) s"; tail -n 12 "$s/log.txt"; } | tee /tmp/k/smoke.txt
if [ "$rc" != 0 ] || [ "$ok" != "$want" ]; then
  echo "smoke run failed: not timing the suite"
  exit 1
fi
export RUN_ARGS_3="${RUN_ARGS_3--j 12}"
SKIP_DRAWS=1 RUNS="${RUNS:-3}" TIMING_FIRST=1 TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40" \
  tune/h200_call_k.sh
