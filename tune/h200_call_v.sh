#!/usr/bin/env bash
# Session 40's next call (about 300 s of device time): is the reference worker's offset on short
# workloads a random draw per process? Session 40's H200 suite runs read the one reference worker
# 3.6% slower than the candidate processes on workloads under 20 us (830 of 974 above 1), while
# the candidates of two runs agreed on average (+0.00%); session 35's H100 +3.1%, 37's +0.0%.
# 0. tune/process_offset.py: is a process's offset its stream, its flush buffer or its inputs?
# 1. tune/flush_kind.py: four processes, the short kernels' medians per process and per flush,
#    and within each process over six input placements (is the offset where the inputs sit?);
# 2. 24 short-workload tasks, references as submissions, three runs each with a fresh reference
#    worker (`--reference-timing session`, a new kbx each run): tools/repeatability.py's signed
#    self-check per run. A random draw per process shows as offsets of either sign run to run;
#    one sign every run points at what sets the reference worker apart.
# 3. the same with `--reference-timing adjacent`; tune/offset_split.py on all four (the offset in
#    the events against the kernels' own time).
# usage: tune/h200_call_v.sh   (the carried build in .device/bin)
set -u
cd "$(dirname "$0")/.."
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
python3 tune/process_offset.py 6 1000
python3 tune/flush_kind.py 4 1000
R=/tmp/kbx-offset
rm -rf "$R" && mkdir -p "$R"
tasks="Math/abs.py,Math/add.py,Math/mul.py,Math/sub.py,Math/div.py,Math/cos.py,Math/log.py"
tasks+=",Math/exp_sqrt.py,Math/sqrt_tanh.py,Math/reciprocal.py,Math/rsqrt.py,Math/erf.py"
tasks+=",Math/signbit.py,Math/floor.py,Math/trunc.py,Math/asin.py,Activation/relu.py"
tasks+=",Activation/sigmoid.py,Activation/tanh.py,Activation/gelu.py,Activation/leaky_relu.py"
tasks+=",Fusion/fused_add_gelu.py,Fusion/fused_mul_sub.py,Optimizer/SGD.py"
python3 tools/references_as_submissions.py "$R/refs.jsonl" --tasks "$tasks" >/dev/null
for i in 1 2 3; do
  t0=$(date +%s)
  KBX_PYTHON=python3 KBX_CACHE_DIR="$R/cache$i" TRITON_CACHE_DIR="$R/triton$i" build-device/kbx eval \
    "$R/refs.jsonl" -o "$R/run$i" --device cuda --no-require-triton --reference-timing session \
    --warmup-ms 2 --ci-budget-ms 40 >"$R/run$i.log" 2>&1
  echo "run $i: exit $?, $(( $(date +%s) - t0 )) s, $(grep -c ' ok ' "$R/run$i.log") ok"
done
# 3. the same tasks with the reference timed next to each candidate (`adjacent`): an offset that
#    stays is the reference worker's, one that goes was the time of the reference pass.
t0=$(date +%s)
KBX_PYTHON=python3 KBX_CACHE_DIR="$R/cache4" TRITON_CACHE_DIR="$R/triton4" build-device/kbx eval \
  "$R/refs.jsonl" -o "$R/run4" --device cuda --no-require-triton --reference-timing adjacent \
  --warmup-ms 2 --ci-budget-ms 40 >"$R/run4.log" 2>&1
echo "run 4 (adjacent): exit $?, $(( $(date +%s) - t0 )) s, $(grep -c ' ok ' "$R/run4.log") ok"
python3 tools/repeatability.py "$R/run1" "$R/run2" "$R/run3" "$R/run4" | grep -v "^  "
python3 tune/offset_split.py "$R/run1" "$R/run2" "$R/run3" "$R/run4"
