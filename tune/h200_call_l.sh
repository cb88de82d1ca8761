#!/usr/bin/env bash
# Session 31's short device call: this session's timing changes (samples the GPU waited in taken
# again, the blocking probe paced by a plain call, unsteady runs of samples without a head start
# taken again, the perf recheck's inputs drawn on the GPU) on the tasks that were outside
# 0.95-1.05x in session 31's two runs of the 176 references, with GPU-bound controls and the tasks
# whose rechecks took seconds; two runs with fresh caches (tools/h200_repeat.sh), each with a
# trace, then tools/trace_summary.py and the perf recheck's time per task.
# usage (device tool, carry .device): tune/h200_call_l.sh   env: RUN_TIMEOUT_S (110), OUT (the
#   runs' logs, stores and traces go there)
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
tasks="Index/scatter.py,MatrixMultiply/tril_mm_and_scale.py,Fusion/fused_log_softmax_linear.py,Index/masked_select.py"
tasks+=",Fusion/fused_sigmoid_batch_norm.py,Fusion/fused_log_tanh.py,Normalization/spectral_norm_eig.py"
tasks+=",Activation/leaky_relu.py,LinearAlgebra/eig.py,LinearAlgebra/pseudoinverse_svd.py,LinearAlgebra/invert_matrix_lu.py"
tasks+=",Loss/kl_div.py,LinearAlgebra/solve_symmetric_ldl.py,LinearAlgebra/solve.py,Fusion/fused_cholesky_solve.py"
tasks+=",LinearAlgebra/ldl_factor.py,Math/bitwise_and_binomial.py,Activation/relu.py,MatrixMultiply/matmul_fp16.py"
tasks+=",Activation/gelu.py,Normalization/batch_norm.py,Fusion/fused_tanh_linear.py"
R=/tmp/kbx-l
RESULTS=$R RUN_TIMEOUT_S="${RUN_TIMEOUT_S:-110}" \
  EVAL_ARGS="--trace $R/trace@RUN@.json --warmup-ms 2 --ci-budget-ms 40" tools/h200_repeat.sh 2 "$tasks"
for i in 1 2; do
  echo "== run $i trace"
  python3 tools/trace_summary.py $R/trace$i.json 2>&1 | head -22
  python3 - "$R/trace$i.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
rows = sorted(((e["dur"] / 1e3, e["args"]["task"]) for e in events
               if e.get("name") == "perf recheck" and "dur" in e), reverse=True)
print("perf recheck (ms): " + ", ".join(f"{t.split('/')[-1]} {d:.0f}" for d, t in rows[:8]))
PY
done
[ -n "${OUT:-}" ] && for i in 1 2; do xz -T4 -c $R/trace$i.json >"$OUT/trace$i.json.xz"; done
