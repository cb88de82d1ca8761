#!/usr/bin/env bash
# Session 43's profiling call (issue 7's wall time): every third task of the suite (59 tasks,
# tune/subset59.txt) as references-as-submissions, one fresh run with `--trace`, so each time
# request's per-workload phases (inputs, warm-up, samples, brackets, inventory) can be read
# offline (tune/phase_costs.py); the trace and the store come back xz-compressed in $OUT.
set -u
cd "$(dirname "$0")/.."
s=/tmp/z
rm -rf "$s" && mkdir -p "$s" build-device
[ -x build-device/kbx ] || cp .device/bin/* build-device/
python3 tools/references_as_submissions.py "$s/refs.jsonl" --tasks "$(cat tune/subset59.txt)"
t0=$(date +%s.%N)
KBX_CACHE_DIR="$s/cache" TRITON_CACHE_DIR="$s/triton" KBX_PYTHON=python3 build-device/kbx eval \
  "$s/refs.jsonl" -o "$s/run" --device cuda --no-require-triton --trace "$s/trace.json" \
  --warmup-ms 2 --ci-budget-ms 40 >"$s/log.txt" 2>&1
echo "exit $? wall $(echo "$(date +%s.%N) - $t0" | bc) s"
tail -n 4 "$s/log.txt"
python3 tune/timing_profile.py "$s/trace.json" "$s/run/kbx.db" | head -n 12
xz -T8 -c "$s/trace.json" >"${OUT:-/tmp}/trace-z.json.xz"
xz -T8 -c "$s/run/kbx.db" >"${OUT:-/tmp}/run-z.db.xz"
