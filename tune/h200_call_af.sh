#!/usr/bin/env bash
# The next session's device call (tune/h200_bg.sh start 'tune/h200_call_af.sh' 540, then wait,
# then finish with /tmp/k-texts.tar.xz '/tmp/k/*.txt'):
# - on an H200: tune/h200_call_y.sh (the GPU-only exploits with 50 and 51, then issue 5's pending
#   PyTorch eager draws for DRAWS_S seconds, base seeds from SEED_BASE);
# - on any other card, issue 7's wall: the 176 references as submissions, a pair of runs (fresh,
#   then cached) with the defaults (since session 44 the zygote no longer imports torch._dynamo:
#   session 44's pair on an H100 took 226.3 / 129.0 s) and a pair with `--long-call-samples 3`
#   (GPU-bound calls over 10 ms take 3 samples, not 5) with `--short-call-budget-ms 12` (GPU-bound
#   calls under 20 us sample for 12 ms, not 40), then a pair with `--long-call-samples 3` alone;
#   tools/repeatability.py over the runs and each cached run's profile. About 1,080 s.
source "$(dirname "$0")/device_prologue.sh"
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh
  exit
fi
pair() {  # NAME EXTRA_FLAGS
  local R=/tmp/kbx-tc-$1
  RESULTS=$R RUNS=2 EVAL_ARGS="--trace $R/trace@RUN@.json --warmup-ms 2 --ci-budget-ms 40 $2" \
    tools/h200_timing_cache.sh 2>&1 | tee /tmp/k/pair-$1.txt
  python3 tune/timing_profile.py $R/trace2.json $R/run2/kbx.db >/tmp/k/profile-$1.txt 2>&1
  python3 tune/trace_gaps.py $R/trace2.json --min-gap-s 1.0 >/tmp/k/gaps-$1.txt 2>&1
  tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
}
repeat() {  # every run so far, into /tmp/k/repeat.txt
  python3 tools/repeatability.py $(ls -d /tmp/kbx-tc-*/run[12]) 2>&1 | tee /tmp/k/repeat.txt \
    | grep -v "^  "
}
pair default ""
pair long3short12 "--long-call-samples 3 --short-call-budget-ms 12"
repeat
pair long3 "--long-call-samples 3"
repeat
tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
