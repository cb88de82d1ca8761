#!/usr/bin/env bash
# The reference timing cache on a GPU in one call (device tool or any CUDA machine): the suite's
# references as submissions, evaluated twice with `--reference-timing cached` and one cache dir,
# so the second run reads every reference timing back instead of measuring it; prints both wall
# times, how many timings came from the cache, and tools/repeatability.py over the runs.
# usage: tools/h200_timing_cache.sh [TASK_GLOBS (all)]
#   env: RESULTS (/tmp/kbx-timing-cache), RUNS (2: run 1 fills the cache, the later ones read it;
#        each run has fresh Triton and compile caches, only the reference timings carry over),
#        EVAL_ARGS (more kbx eval flags; @RUN@ becomes the run's number, e.g. "--trace T@RUN@.json"),
#        RUN_ARGS_<I> (more flags for run I only, e.g. RUN_ARGS_3="-j 12"),
#        AFTER_RUN (a shell command run after each run, @RUN@ likewise: a caller's summaries of the
#        runs so far, ready before the next run starts)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-timing-cache}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py" KBX_CACHE_DIR="$results/cache" TRITON_CACHE_DIR="$results/triton"
tools/build_device.sh "$results/build.log" || exit 1
kbx="${KBX:-build-device/kbx}"
"$py" tools/references_as_submissions.py "$results/refs.jsonl" ${1:+--tasks "$1"}
runs="${RUNS:-2}"
eval_args="${EVAL_ARGS:-}"
for ((i = 1; i <= runs; i++)); do
  # Only the reference timings persist between runs: candidates compile cold every time.
  rm -rf "$results/triton"
  run_args_var="RUN_ARGS_$i"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # EVAL_ARGS is a list of flags
  "$kbx" eval "$results/refs.jsonl" -o "$results/run$i" --device cuda --no-require-triton \
    --reference-timing cached --compile-cache "$results/compile$i" ${eval_args//@RUN@/$i} ${!run_args_var:-} >"$results/run$i.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "run $i: exit $rc, $(grep -c ' ok ' "$results/run$i.log") ok, wall $("$py" -c "print(round($t1 - $t0, 1))") s;" \
       "$(grep -o 'reference timings: [0-9]* of [0-9]* from the cache' "$results/run$i.log" | tail -1)"
  [ -n "${AFTER_RUN:-}" ] && eval "${AFTER_RUN//@RUN@/$i}"
done
"$py" tools/repeatability.py $(for ((i = 1; i <= runs; i++)); do echo "$results/run$i"; done)
