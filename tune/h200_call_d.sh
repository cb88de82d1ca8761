#!/usr/bin/env bash
# One device call: launch costs, then four host-sensitive expert kernels evaluated alone (few
# workers beside the timing) to compare with their rows in the run of all 84.
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
uptime; timeout 60 python3 tune/launch_cost.py 2>&1 | tee "$OUT/launch.txt"
RESULTS=/tmp/sol-few timeout "${1:-300}" tools/h200_solutions.sh Index/masked_select.py \
  LinearAlgebra/cholesky_solve.py Fusion/fused_masked_select_add_gelu.py Fusion/fused_log_tanh.py \
  > "$OUT/sol_few.txt" 2>&1
tail -8 "$OUT/sol_few.txt"
cp /tmp/sol-few/work/run/kbx.db "$OUT/sol_few.db" 2>/dev/null
