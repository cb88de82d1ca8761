#!/usr/bin/env bash
# Session 29's device run, one background command (tune/h200_bg.sh start 'tune/h200_call_k.sh'):
# 1. issue 5: PyTorch eager over 1,000 draws on the H200 of what changed since session 27's draws
#    (tree e605e02): the cases sessions 27-28 added or changed (tune/session29_cases.txt, in the
#    tasks of tune/session29_tasks.txt; `kbx suite check --cases`), and every case of
#    LinearAlgebra/svd (its backward-error rule) and Optimizer/Adam (judged by step() now);
# 2. issues 5 and 7: the 176 references as submissions, RUNS runs with fresh Triton and compile
#    caches and one reference timing cache (tools/h200_timing_cache.sh: run 1 times the references
#    into it, later runs read them back), each with --trace and TIMING_ARGS (sampling flags), then
#    tools/repeatability.py and tools/trace_summary.py per run. Writes /tmp/k/* and
#    /tmp/k-texts.tar.xz; the finish call copies /tmp/k-texts.tar.xz /tmp/k/*.xz.
#   env: SKIP_DRAWS=1 (timing only), DRAWS (1000), RUNS (2), TIMING_ARGS
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k
export KBX=build-device/kbx KBX_PYTHON=python3
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t0=$(date +%s)
if [ -z "${SKIP_DRAWS:-}" ]; then
  # svd and Adam are two evaluations a chunk (one per task), so four runs of a quarter of the
  # draws each (their own base seeds) go beside the delta's 53 tasks.
  q=$(( ${DRAWS:-1000} / 4 ))
  for p in 0 1 2 3; do
    JOBS=2 REF_WORKERS=2 SEED_BASE=$((7100 + p)) RESULTS=/tmp/seeds-whole$p \
      tools/eager_seeds.sh "$q" "$q" LinearAlgebra/svd.py Optimizer/Adam.py >/tmp/k/seeds-whole$p.txt 2>&1 &
  done
  CASES="$(cat tune/session29_cases.txt)" JOBS=8 REF_WORKERS=4 SEED_BASE=7000 RESULTS=/tmp/seeds-delta \
    tools/eager_seeds.sh "${DRAWS:-1000}" 250 $(cat tune/session29_tasks.txt) >/tmp/k/seeds-delta.txt 2>&1
  echo "delta draws: exit $?, $(( $(date +%s) - t0 )) s"; tail -4 /tmp/k/seeds-delta.txt
  wait
  echo "svd and Adam draws: $(( $(date +%s) - t0 )) s"; tail -n 4 /tmp/k/seeds-whole*.txt
fi
R=/tmp/kbx-timing-cache
RESULTS=$R RUNS="${RUNS:-2}" EVAL_ARGS="--trace $R/trace@RUN@.json ${TIMING_ARGS:-}" tools/h200_timing_cache.sh >/tmp/k/repeat.txt 2>&1
echo "timing: exit $?, $(( $(date +%s) - t0 )) s"
for i in $(seq 1 "${RUNS:-2}"); do
  python3 tools/trace_summary.py "$R/trace$i.json" >/tmp/k/trace$i.txt 2>&1
  xz -T4 -c "$R/run$i/kbx.db" >/tmp/k/run$i.db.xz 2>/dev/null
done
tar -C $R -cJf /tmp/k/traces.tar.xz $(cd $R && ls trace*.json) 2>/dev/null
tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
ls -la /tmp/k
cat /tmp/k/repeat.txt | tail -60
