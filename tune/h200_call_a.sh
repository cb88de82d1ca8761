#!/usr/bin/env bash
# One device call: the GEMM and linear-algebra tuning tables, then the references of 71 tasks as
# submissions with the new sampling (trace included). Everything is written to $OUT as it goes.
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
timeout 150 python3 tune/gemm_tune.py --largest 2 --rep 50 --budget 120 --sweep-top 2 > "$OUT/gemm_tune.txt" 2>&1
tail -60 "$OUT/gemm_tune.txt"
if [ -f tune/linalg_tune.py ]; then
  timeout 150 python3 tune/linalg_tune.py --jobs 12 > "$OUT/linalg_tune.txt" 2>&1
  tail -40 "$OUT/linalg_tune.txt"
fi
EVAL_ARGS="--trace $OUT/trace1.json" OUT=$OUT RUN_TIMEOUT_S=170 timeout 200 \
  tools/h200_repeat.sh 1 "LinearAlgebra/*,Index/*,Loss/*,Reduce/*,Math/*" > "$OUT/repeat.log" 2>&1
tail -8 "$OUT/repeat.log"
python3 tools/trace_summary.py "$OUT/trace1.json" 2>&1 | tee "$OUT/trace_summary.txt" | head -30
