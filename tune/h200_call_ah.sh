#!/usr/bin/env bash
# Session 46's check of its contract changes on a GPU (any card; about 3 minutes), in one call:
# `tune/h200_bg.sh start 'tune/h200_call_ah.sh' 300` (carry .device), then `finish 5 '/tmp/k/*.txt'`.
# - tune/trig_range.py: compiled tl.cos / tl.sin / libdevice error against float64 as |x| grows
#   (whether a wide-range case can join Fusion/fused_cos_signbit without failing honest tl.cos
#   kernels: the known gap tests/model_kernels/known_gaps/Fusion/...naive_range_reduction.py);
# - the model kernels of the three changed tasks (and of fused_cos_signbit) (Random/logspace and
#   Random/rand compare requires_grad; Reduce/sum judges float64 at 1e-10), without perf, and
#   `kbx suite check` of the three on cuda over SEEDS (5) draws.
source "$(dirname "$0")/device_prologue.sh"
timeout 120 python3 tune/trig_range.py cuda 2>&1 | tee /tmp/k/trig-range.txt
changed="Random/logspace*.py Random/rand*.py Reduce/sum*.py"
timeout 100 python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda \
  --no-perf --work /tmp/mk $changed Fusion/fused_cos_signbit*.py 2>&1 | tee /tmp/k/model-kernels.txt
timeout 60 build-device/kbx suite check Random/logspace Random/rand Reduce/sum --device cuda \
  --seeds ${SEEDS:-5} -o /tmp/sc --python python3 2>&1 | tail -n 4 | tee /tmp/k/suite-check.txt
