#!/usr/bin/env bash
# Session 30's open question, for a GPU machine in one call: why do host-bound workloads (host time
# per call at least their GPU time: eigvals, eig, masked_select) time faster in a fresh candidate
# process than in the long-lived reference worker (the references as submissions on an H100:
# spectral_norm_eig 1.557x, eig 1.194x, masked_select 1.252x; over 1,525 host-bound workloads
# reference / candidate median 1.009 with 15.9% above 1.05, GPU-bound ones 1.0006)?
# Runs the same submissions with the reference timed in the session's reference pass, in each
# submission's slot (`adjacent`, right after the candidate) and in two rounds there (`interleaved`,
# the candidate's second in a fresh process), and in the reference pass without CUPTI, twice
# each, with GPU-bound controls;
# records the host's topology (hyperthread siblings) and, once a second, the CPU each kbx and worker
# thread ran on and every CPU's busy counters (a reference worker sharing a core with a busy
# sibling would run its host half at half speed: eigvals' CPU part took 2x in it), then
# tools/repeatability.py over the eight runs.
# usage: tune/host_asymmetry.sh [TASK_GLOBS]   env: RESULTS (/tmp/kbx-host-asym), KBX, KBX_PYTHON
set -u
cd "$(dirname "$0")/.."
R="${RESULTS:-/tmp/kbx-host-asym}"
py="${KBX_PYTHON:-python3}"
kbx="${KBX:-build-device/kbx}"
tasks="${1:-Normalization/spectral_norm_eig.py,LinearAlgebra/eig.py,Index/masked_select.py,Activation/relu.py,MatrixMultiply/matmul_fp16.py}"
rm -rf "$R" && mkdir -p "$R"
{ nvidia-smi topo -m; lscpu; lscpu -e; numactl -H; } >"$R/topology.txt" 2>&1
"$py" tools/references_as_submissions.py "$R/refs.jsonl" --tasks "$tasks" || exit 1
runs=()
# session-nocupti: the session mode without the kernel inventory (CUPTI never loaded): the
# long-lived reference worker detaches and attaches CUPTI once or more per task, a candidate once
# or twice, and CUPTI slows a process's launches and synchronisations while attached.
for mode in session adjacent interleaved session-nocupti; do
  for rep in 1 2; do
    out="$R/$mode$rep"
    cupti=()
    [ "$mode" = session-nocupti ] && cupti=(env KBX_CUPTI_LIBRARY=/nonexistent/libkbx_cupti.so)
    KBX_PYTHON="$py" "${cupti[@]}" "$kbx" eval "$R/refs.jsonl" -o "$out" --device cuda \
      --no-require-triton --reference-timing "${mode%-nocupti}" >"$out.log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      echo "== $(date +%T.%N)" >>"$out-cpus.txt"
      ps -eLo pid,tid,psr,pcpu,rss,args | grep -E '[k]bx_worker|[k]bx eval' | cut -c1-160 >>"$out-cpus.txt"
      grep '^cpu[0-9]' /proc/stat >>"$out-cpus.txt"  # per-CPU busy time: who shares a core
      sleep 1
    done
    wait "$pid"
    echo "$mode run $rep: exit $?, $(grep -c ' ok ' "$out.log") ok"
    runs+=("$out")
  done
done
"$py" tools/repeatability.py "${runs[@]}"
