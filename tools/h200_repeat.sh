#!/usr/bin/env bash
# Repeatability on a GPU in one call (device tool or any CUDA machine): the suite's references as
# submissions, evaluated RUNS times back to back, each with fresh reference and Triton caches, then
# tools/repeatability.py over the runs (self-check and run-to-run spread, issue 7's figures).
# usage: tools/h200_repeat.sh [RUNS (2)] [TASK_GLOBS (all)]
#   env: RESULTS (/tmp/kbx-repeat), OUT, EVAL_ARGS (more kbx eval flags, e.g. "--reference-timing adjacent";
#        @RUN@ in them becomes the run's number, e.g. "--trace /tmp/trace@RUN@.json"),
#        RUN_TIMEOUT_S (each run stopped after this many seconds; 0 = none): with OUT, each run's log
#        goes to OUT as it is written and its store is copied even after a timeout, so a device
#        call that runs out of time still brings back what was measured
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
runs="${1:-2}"
tasks="${2:-}"
results="${RESULTS:-/tmp/kbx-repeat}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py"
tools/build_device.sh "$results/build.log" || exit 1
kbx="${KBX:-build-device/kbx}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
git log -1 --format='commit %h %s' 2>/dev/null || true
"$py" tools/references_as_submissions.py "$results/refs.jsonl" ${tasks:+--tasks "$tasks"}
dirs=()
eval_args="${EVAL_ARGS:-}"
for i in $(seq 1 "$runs"); do
  export KBX_CACHE_DIR="$results/cache$i" TRITON_CACHE_DIR="$results/triton$i"
  t0=$(date +%s.%N)
  log="$results/run$i.log"
  [ -n "${OUT:-}" ] && log="$OUT/run$i.log" && ln -sf "$log" "$results/run$i.log"
  timeout "${RUN_TIMEOUT_S:-0}" "$kbx" eval "$results/refs.jsonl" -o "$results/run$i" --device cuda \
    --no-require-triton ${eval_args//@RUN@/$i} >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "run $i: exit $rc, $(grep -c ' ok ' "$results/run$i.log") ok, wall $("$py" -c "print(round($t1 - $t0, 1))") s"
  dirs+=("$results/run$i")
  [ -n "${OUT:-}" ] && cp "$results/run$i/kbx.db" "$OUT/run$i.db" 2>/dev/null
done
"$py" tools/repeatability.py "${dirs[@]}"
