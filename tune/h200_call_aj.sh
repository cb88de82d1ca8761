#!/usr/bin/env bash
# Session 47's device call, one background command on any card: `DRAWS_S=1150 tune/h200_bg.sh
# start 'tune/h200_call_aj.sh' 540` (carry .device), then `wait` / `finish 5 '/tmp/k/*.txt'`.
# - the cosine tasks' new wide-range case (Math/cos, Fusion/fused_cos_signbit and
#   Fusion/fused_cos_avg_pool1d: uniform on [-1e4, 1e4]) on a GPU: their model kernels under both
#   rule sets (the correct tl.cos ones ok, the naive float32 range reductions incorrect under kbx's
#   rules), the expert kernels, and `kbx suite check` of the three over SEEDS (5) draws;
# - the provenance change (views change no marks, copies of inputs stay inputs, a kernel that only
#   transposes or slices PyTorch's result carries no mark): the zoo's honest control and the copy
#   exploits 48, 49 and the new 53 on the GPU;
# - then PyTorch eager over 1,000 draws of the three cosine tasks and issue 5's 71 pending tasks
#   (tune/h200_draws_pending.txt) for DRAWS_S seconds, base seeds from SEED_BASE (8500: unused on
#   any GPU). On an H200 these are the issue's draws; on an H100 (same sm_90 code paths) a proxy
#   that finds false failures, reported as such.
source "$(dirname "$0")/device_prologue.sh"
cos="Math/cos*.py Fusion/fused_cos_signbit*.py Fusion/fused_cos_avg_pool1d*.py"
for rules in kbx kernelbenchx; do
  timeout 100 python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 \
    --device cuda --no-perf --work /tmp/mk-$rules --rules $rules $cos 2>&1 | tail -n 10
done | tee /tmp/k/model-kernels.txt
timeout 100 python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 \
  --device cuda --no-perf --work /tmp/mk-sol --dir solutions "Fusion/fused_cos_*.py" 2>&1 \
  | tail -n 4 | tee -a /tmp/k/model-kernels.txt
timeout 120 build-device/kbx suite check Math/cos Fusion/fused_cos_signbit Fusion/fused_cos_avg_pool1d \
  --device cuda --seeds ${SEEDS:-5} -o /tmp/sc --python python3 2>&1 | tail -n 3 \
  | tee /tmp/k/suite-check.txt
timeout 150 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
  --only 00,48,49,53 2>&1 | tail -n 6 | tee /tmp/k/exploits.txt
KBX=build-device/kbx JOBS=12 REF_WORKERS=8 SEED_BASE="${SEED_BASE:-8500}" BUDGET_S="${DRAWS_S:-1150}" \
  tools/eager_seeds.sh 1000 50 Math/cos.py Fusion/fused_cos_signbit.py Fusion/fused_cos_avg_pool1d.py \
  $(grep -v "^#" tune/h200_draws_pending.txt) 2>&1 | tee /tmp/k/draws.txt
