#!/usr/bin/env bash
# The next session's device call (session 46's plan): `DRAWS_S=1250 tune/h200_bg.sh start
# 'tune/h200_call_ai.sh' 540` (carry .device), then `wait` / `finish 5 /tmp/k-texts.tar.xz
# '/tmp/k/*.txt'`, and `tune/h200_bg.sh stop` before timing anything else.
# - first, on any card, tune/h200_call_ah.sh (about 2 minutes): session 46's contract changes on a
#   GPU (requires_grad compared for logspace and rand, sum's float64 tolerance: their model kernels
#   and 5 eager draws) and tune/trig_range.py (whether compiled tl.cos stays accurate for |x| in
#   the thousands, which decides the known gap fused_cos_signbit__naive_range_reduction);
# - then on an H200, tune/h200_call_y.sh: the GPU-only exploits and issue 5's pending eager draws
#   (71 tasks, tune/h200_draws_pending.txt; SEED_BASE 8000 is still unused on an H200) for
#   DRAWS_S seconds; on another card the GPU-only exploits (the honest softmax changed in dd4e49b;
#   issue 7's pair ran on an H100 in sessions 45 and 46: docs/perf.md).
source "$(dirname "$0")/device_prologue.sh"
tune/h200_call_ah.sh
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh  # the GPU-only exploits first, then the draws
else  # the zoo's honest softmax gained a float64 branch in dd4e49b: the GPU-only exploits again
  timeout 300 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
    --only 00,40,41,42,43,44,46,47,49,50,51,52 2>&1 | tail -n 15 | tee /tmp/k/exploits.txt
fi
tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
