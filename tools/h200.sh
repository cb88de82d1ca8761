#!/usr/bin/env bash
# The GPU path in one call (run through the device tool on an H200, or on any CUDA machine):
#   1. the suite's references as submissions (Triton requirement off): all must pass, speedup ~1.0
#   2. the correct Triton examples, cold Triton cache, then again warm
# and prints a short per-stage table for each. Uses build-device/kbx (tools/build_device.sh) unless
# KBX is set. Results: $RESULTS (default /tmp/kbx-h200); with $OUT set, the databases and the log
# are copied there.
set -uo pipefail
cd "$(dirname "$0")/.."
kbx="${KBX:-build-device/kbx}"
results="${RESULTS:-/tmp/kbx-h200}"
py="${KBX_PYTHON:-python3}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py" KBX_CACHE_DIR="$results/cache" TRITON_CACHE_DIR="$results/triton-cache"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
"$py" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'
git log -1 --format='commit %h %s' 2>/dev/null || true

timed_eval() {  # name source [args...]
  local name=$1 src=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$kbx" eval "$src" -o "$results/$name" --device cuda "$@" >"$results/$name.log" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$("$py" -c "print(round($t1 - $t0, 2))")
  echo
  echo "== $name: kbx eval $src $* -> exit $rc, wall ${wall} s"
  tail -n 25 "$results/$name.log" | grep -v '^\[' || true
  "$py" tools/stage_report.py "$results/$name" --wall "$wall"
}

"$py" tools/references_as_submissions.py "$results/refs.jsonl"
timed_eval refs "$results/refs.jsonl" --no-require-triton
timed_eval examples_cold examples/correct
timed_eval examples_warm examples/correct

if [ -n "${OUT:-}" ]; then
  for n in refs examples_cold examples_warm; do
    cp "$results/$n/kbx.db" "$OUT/$n.db" 2>/dev/null
    cp "$results/$n.log" "$OUT/$n.log" 2>/dev/null
  done
fi
