#!/usr/bin/env bash
# Session 44's device call (tune/h200_bg.sh start 'tune/h200_call_ae.sh' 540, then wait/finish
# with /tmp/k-texts.tar.xz '/tmp/k/*.txt'):
# 1. a smoke run with perf of one reference per category as submissions (about 40 s): since the
#    L2-flush check (find_flush_violation), an honest candidate's inventory must show a full
#    flush before every call, so all 15 must be ok (none `tampered:l2_flush`);
# 2. on an H200, tune/h200_call_y.sh (the GPU-only exploits, 50 and 51 among them, then issue 5's
#    pending PyTorch eager draws for DRAWS_S seconds); on any other card, tune/h200_call_ad.sh
#    (cuDNN TF32 on the float32 convolution tasks; the whole zoo, expert and model kernels on
#    cuda).
source "$(dirname "$0")/device_prologue.sh"
s=/tmp/smoke
rm -rf "$s" && mkdir -p "$s"
t0=$(date +%s)
python3 tools/references_as_submissions.py "$s/refs.jsonl" --tasks "Activation/gelu.py,\
Convolution/conv2d.py,Fusion/fused_exp_mean.py,Index/index_select.py,LinearAlgebra/cholesky_solve.py,\
Loss/cross_entropy.py,Math/softmax.py,MatrixMultiply/matmul.py,Normalization/batch_norm.py,\
Optimizer/Adam.py,Pooling/avg_pool1d.py,Quantization/bmm_w8a8.py,Random/rand.py,Reduce/sum.py,\
SpatialOps/interpolate.py"
want=$(wc -l <"$s/refs.jsonl")
KBX_CACHE_DIR="$s/cache" TRITON_CACHE_DIR="$s/triton" KBX_PYTHON=python3 build-device/kbx eval \
  "$s/refs.jsonl" -o "$s/run" --device cuda --no-require-triton \
  --warmup-ms 2 --ci-budget-ms 40 >"$s/log.txt" 2>&1
rc=$?
ok=$(sed -n 's/^Outcomes:.*\bok \([0-9]*\).*/\1/p' "$s/log.txt")
{ echo "smoke: exit $rc, $ok of $want ok, $(( $(date +%s) - t0 )) s"; tail -n 25 "$s/log.txt"; } | tee /tmp/k/smoke.txt
python3 - "$s/run/kbx.db" <<'PY' | tee -a /tmp/k/smoke.txt
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT s.task_key, e.outcome, e.reason, substr(e.detail, 1, 300) "
                      "FROM evaluations e JOIN submissions s USING (submission_id)"):
    print(*row)
PY
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh
else
  tune/h200_call_ad.sh
fi
