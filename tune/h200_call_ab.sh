#!/usr/bin/env bash
# Session 43's trust call (tune/h200_bg.sh start 'tune/h200_call_ab.sh' 540, then finish with
# '/tmp/k/*.txt'): the provenance change (a Triton kernel that only copies PyTorch's result) on a
# GPU: the whole exploit zoo on cuda, then kbx's expert kernels (solutions/) and the model-style
# kernels (tests/model_kernels) without perf, each verdict against the one its file expects.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || cp .device/bin/* build-device/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/k/gpu.txt
t0=$(date +%s)
timeout 420 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
  --keep /tmp/zoo 2>&1 | tail -n 60 >/tmp/k/zoo.txt
echo "zoo: $(( $(date +%s) - t0 )) s" | tee -a /tmp/k/zoo.txt; tail -n 3 /tmp/k/zoo.txt
t0=$(date +%s)
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda \
  --dir solutions --no-perf --work /tmp/sol >/tmp/k/solutions.txt 2>&1
echo "solutions: $(( $(date +%s) - t0 )) s" | tee -a /tmp/k/solutions.txt; tail -n 2 /tmp/k/solutions.txt
t0=$(date +%s)
python3 tests/model_kernels/check.py --kbx build-device/kbx --python python3 --device cuda \
  --no-perf --work /tmp/mk >/tmp/k/model-kernels.txt 2>&1
echo "model kernels: $(( $(date +%s) - t0 )) s" | tee -a /tmp/k/model-kernels.txt
grep "^! " /tmp/k/model-kernels.txt; tail -n 2 /tmp/k/model-kernels.txt
