#!/usr/bin/env bash
# One device call: the four reworked expert kernels evaluated by kbx (perf on), GEMMs first.
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
RESULTS=/tmp/sol-gemm timeout 130 tools/h200_solutions.sh Convolution/conv2d.py Fusion/fused_bmm_dropout_gelu.py \
  > "$OUT/sol_gemm.txt" 2>&1
tail -8 "$OUT/sol_gemm.txt"
cp /tmp/sol-gemm/work/run/kbx.db "$OUT/sol_gemm.db" 2>/dev/null
RESULTS=/tmp/sol-linalg timeout 170 tools/h200_solutions.sh LinearAlgebra/determinant_lu.py \
  LinearAlgebra/solve_and_add_scaled_vector.py > "$OUT/sol_linalg.txt" 2>&1
tail -8 "$OUT/sol_linalg.txt"
cp /tmp/sol-linalg/work/run/kbx.db "$OUT/sol_linalg.db" 2>/dev/null
