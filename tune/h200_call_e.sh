#!/usr/bin/env bash
# One device call (session 23): the host path of the masked_select kernels (tune/host_path.py),
# the cholesky_solve chain solver's knobs (tune/linalg_tune.py --task chol), then kbx on the three
# changed solutions.
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
timeout 90 python3 tune/host_path.py 2>&1 | tee "$OUT/host_path.txt"
(cd tune && timeout "${1:-240}" python3 linalg_tune.py --task chol --jobs 16) 2>&1 | tee "$OUT/chol_tune.txt"
RESULTS=/tmp/sol-e timeout "${2:-200}" tools/h200_solutions.sh Index/masked_select.py \
  LinearAlgebra/cholesky_solve.py Fusion/fused_masked_select_add_gelu.py > "$OUT/sol_e.txt" 2>&1
tail -12 "$OUT/sol_e.txt"
cp /tmp/sol-e/work/run/kbx.db "$OUT/sol_e.db" 2>/dev/null
cp /tmp/sol-e/work/run/kbx-results.json "$OUT/sol_e.json" 2>/dev/null
