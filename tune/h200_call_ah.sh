#!/usr/bin/env bash
# Session 46's check of its contract changes on a GPU (any card; about 3 minutes), in one call:
# `tune/h200_bg.sh start 'tune/h200_call_ah.sh' 300` (carry .device), then `finish 5 '/tmp/k/*.txt'`.
# - tune/trig_range.py: compiled tl.cos / tl.sin / libdevice error against float64 as |x| grows
#   (whether a wide-range case can join Fusion/fused_cos_signbit without failing honest tl.cos
#   kernels: the known gap tests/model_kernels/known_gaps/Fusion/...naive_range_reduction.py);
# - the model kernels and expert kernels of the three changed tasks (Random/logspace and
#   Random/rand compare requires_grad; Reduce/sum judges float64 at 1e-10), without perf, and
#   `kbx suite check` of the three on cuda over 20 draws.
source "$(dirname "$0")/device_prologue.sh"
timeout 120 python3 tune/trig_range.py cuda 2>&1 | tee /tmp/k/trig-range.txt
changed="Random/logspace*.py Random/rand*.py Reduce/sum*.py"
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda --no-perf \
  --work /tmp/mk $changed Fusion/fused_cos_signbit*.py 2>&1 | tee /tmp/k/model-kernels.txt
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda --no-perf \
  --dir tests/model_kernels/known_gaps --work /tmp/kg 2>&1 | tail -n 4 | tee /tmp/k/known-gaps.txt
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda --no-perf \
  --dir solutions --work /tmp/sol $changed 2>&1 | tail -n 5 | tee /tmp/k/solutions.txt
build-device/kbx suite check Random/logspace Random/rand Reduce/sum --device cuda --seeds 20 \
  -o /tmp/sc --python python3 2>&1 | tail -n 4 | tee /tmp/k/suite-check.txt
