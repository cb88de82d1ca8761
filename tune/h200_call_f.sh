#!/usr/bin/env bash
# One device call (session 24, issue 7): the 176 references as submissions, two back-to-back runs
# with fresh caches under a lean sampling configuration (LEAN, below), each with --trace; then the
# repeatability table and where each run's time went.
# usage: tune/h200_call_f.sh [RUN_TIMEOUT_S (270)]   env: LEAN (the kbx eval sampling flags)
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
lean="${LEAN:---warmup-ms 2 --sample-budget-ms 8 --max-samples 50 --ci-budget-ms 30}"
echo "sampling: $lean"
EVAL_ARGS="$lean --trace $OUT/trace@RUN@.json" RUN_TIMEOUT_S="${1:-270}" tools/h200_repeat.sh 2 \
  > "$OUT/repeat.txt" 2>&1
cat "$OUT/repeat.txt" | tail -30
for i in 1 2; do
  [ -f "$OUT/trace$i.json" ] && python3 tools/trace_summary.py "$OUT/trace$i.json" > "$OUT/trace_summary$i.txt" 2>&1 \
    && head -12 "$OUT/trace_summary$i.txt"
  gzip -f "$OUT/trace$i.json" 2>/dev/null
done
