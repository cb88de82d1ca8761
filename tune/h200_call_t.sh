#!/usr/bin/env bash
# Session 39's second device call (about 250 s of device time): after 04d8c3e (a task whose
# reference leaves the GPU idle for over 30% of a sample is timed quiet and its reference again
# next to each candidate), the 11 host-synchronising tasks, the 5 the looser test adds (`svd`
# read 1.07x in both cached runs of this session's first call; `fused_svd_reconstruct`,
# `invert_matrix_lu`, `cholesky`, `attention_w8a8`) and three GPU-bound controls, references as
# submissions: run 1 fresh, runs 2 and 3 from run 1's cached reference timings. Expected: every
# task within 0.95-1.05x in all three runs; `reference_adjacent` on the 16 tasks' holds.
# usage: tune/h200_call_t.sh   (the carried build in .device/bin)
set -u
cd "$(dirname "$0")/.."
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
tasks="Normalization/spectral_norm_eig.py,LinearAlgebra/eig.py,LinearAlgebra/solve_symmetric_ldl.py"
tasks+=",Fusion/fused_cholesky_solve.py,Index/masked_select.py,Fusion/fused_log_tanh.py"
tasks+=",Fusion/fused_masked_select_add_gelu.py,Math/bitwise_and_binomial.py,LinearAlgebra/solve.py"
tasks+=",LinearAlgebra/pseudoinverse_svd.py,LinearAlgebra/ldl_factor.py"
tasks+=",LinearAlgebra/svd.py,Fusion/fused_svd_reconstruct.py,LinearAlgebra/invert_matrix_lu.py"
tasks+=",LinearAlgebra/cholesky.py,Quantization/attention_w8a8.py"
tasks+=",Activation/relu.py,Math/add.py,Reduce/sum.py"
R=/tmp/kbx-timing-cache
RUNS=3 EVAL_ARGS="--warmup-ms 2 --ci-budget-ms 40 --trace $R/trace@RUN@.json" \
  tools/h200_timing_cache.sh "$tasks"
python3 tune/exclusive_holds.py $(for i in 1 2 3; do echo "$R/trace$i.json"; done)
grep -h "taken again\|Outcomes" $R/run*.log
