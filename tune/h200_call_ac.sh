#!/usr/bin/env bash
# Session 43's check of the GPU-only verdict fixes (after tune/h200_call_ab.sh found 14 model kernels
# whose cuda verdict differed from their file's expectation): those 14 and every variant of the
# three tasks whose contract changed (floor's specials without a subnormal, hardshrink-dropout's
# canonical form with a relative tolerance, embedding's max_norm renorm done by the reference),
# kbx's expert kernels of those tasks, without perf, then `kbx suite check` of the three on cuda.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || cp .device/bin/* build-device/
changed="Math/floor*.py Fusion/fused_hardshrink_dropout*.py Fusion/fused_embedding_add_tanh*.py"
mismatched="Fusion/fused_elu_linear.py Fusion/fused_softplus_linear.py Fusion/fused_tanh_linear.py
  MatrixMultiply/matrix_multiply_symmetric.py MatrixMultiply/symmetric_mm_and_abs_sum.py
  MatrixMultiply/tensordot_rsqrt.py MatrixMultiply/tril_mm_and_scale.py
  Fusion/fused_exp_mean__sequential.py Normalization/spectral_norm_eig.py
  Quantization/attention_w8a8.py SpatialOps/grid_sample.py"
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda --no-perf \
  --work /tmp/mk $changed $mismatched 2>&1 | tee /tmp/k/model-kernels.txt | grep -v "^  "
python3 - /tmp/mk/run/kbx.db <<'PY' | tee /tmp/k/details.txt
import sqlite3, sys
for origin, outcome, reason, detail in sqlite3.connect(sys.argv[1]).execute(
        "SELECT s.origin, e.outcome, e.reason, e.detail FROM submissions s JOIN evaluations e "
        "USING (submission_id) WHERE e.outcome != 'ok'"):
    print(origin.rsplit(":", 1)[1], outcome, reason, detail[:1500].replace("\n", " | "))
PY
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda --no-perf \
  --dir solutions --work /tmp/sol $changed 2>&1 | tail -n 4 | tee /tmp/k/solutions.txt
build-device/kbx suite check $changed --device cuda --seeds 20 -o /tmp/sc --python python3 2>&1 \
  | tail -n 12 | tee /tmp/k/suite-check.txt
