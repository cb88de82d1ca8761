#!/usr/bin/env bash
# Session 38's second device call (about 150 s of device time): the host-synchronising tasks and
# three GPU-bound controls, references as submissions, run 1 fresh and run 2 from run 1's cached
# reference timings, after 20839c3: each candidate of a host-synchronising task
# has its reference timed again right after it, in its hold (session 38's first call, before the
# change: run 2 read 0.67-0.94x on these tasks). Expected: every task within 0.95-1.05x in both
# runs; the trace's exclusive spans with `reference_adjacent` = the host-synchronising tasks.
# usage: tune/h200_call_s.sh   (the carried build in .device/bin)
set -u
cd "$(dirname "$0")/.."
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
tasks="Normalization/spectral_norm_eig.py,LinearAlgebra/eig.py,LinearAlgebra/solve_symmetric_ldl.py"
tasks+=",Fusion/fused_cholesky_solve.py,Index/masked_select.py,Fusion/fused_log_tanh.py"
tasks+=",Fusion/fused_masked_select_add_gelu.py,Math/bitwise_and_binomial.py,LinearAlgebra/solve.py"
tasks+=",LinearAlgebra/pseudoinverse_svd.py,LinearAlgebra/ldl_factor.py,LinearAlgebra/invert_matrix_lu.py"
tasks+=",Activation/relu.py,Math/add.py,Reduce/sum.py"
R=/tmp/kbx-timing-cache
RUNS=2 EVAL_ARGS="--warmup-ms 2 --ci-budget-ms 40 --trace $R/trace@RUN@.json" \
  tools/h200_timing_cache.sh "$tasks"
python3 tune/exclusive_holds.py $(for i in 1 2; do echo "$R/trace$i.json"; done)
grep -h "taken again\|Outcomes" $R/run*.log
