#!/usr/bin/env bash
# The next device call after session 32, one background command (tune/h200_bg.sh start
# 'tune/h200_call_n.sh'):
# 1. tune/host_pair.py (about 35 s): several fresh processes in turn on the same CPUs, rounds
#    apart; session 32 found the slow spells follow the CPU and the moment, not the process;
# 2. the 22 noisiest tasks of session 31 (tune/h200_call_l.sh's), two runs each with
#    `--timing-cpus any` (the default), `--timing-cpus fast` (the worker runs each time
#    request on the fastest CPUs, python/kbx_worker/host_cpus.py) and `--timing-cpus spread`
#    (each sample that includes host work on the next CPU, session 33), and every run's worker-log
#    lines of its time requests (requests22-MODE-runN.txt: the task, each workload's GPU clock
#    and median, the CPUs when fast);
# 3. tune/h200_call_k.sh (the 176 references timed twice with a shared reference cache, then the
#    draws to DEADLINE_S) with the default CPUs (any), comparable with session 32's.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus host-pair.txt, repeat22-*.txt.
#   env: SKIP_22=1, and tune/h200_call_k.sh's (RUNS, DEADLINE_S, SEED_OFFSET, ...)
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
python3 tune/host_pair.py 6 6 0,3,5,7,11,15 >/tmp/k/host-pair.txt 2>&1
tail -n 20 /tmp/k/host-pair.txt
tasks="$(sed -n 's/^tasks+\{0,1\}=\"\(.*\)\"$/\1/p' tune/h200_call_l.sh | tr -d '\n' | sed 's/^,//')"
if [ -z "${SKIP_22:-}" ]; then
  for mode in any fast spread; do
    RESULTS=/tmp/kbx-n-$mode RUN_TIMEOUT_S=110 \
      EVAL_ARGS="--warmup-ms 2 --ci-budget-ms 40 --timing-cpus $mode" \
      tools/h200_repeat.sh 2 "$tasks" >/tmp/k/repeat22-$mode.txt 2>&1
    echo "== 22 tasks, --timing-cpus $mode"; tail -n 25 /tmp/k/repeat22-$mode.txt
  done
  for mode in any fast spread; do
    for i in 1 2; do  # each time request's task, GPU clock per workload, medians (and CPUs)
      grep -h "time request:" /tmp/kbx-n-$mode/run$i/work/logs/* >/tmp/k/requests22-$mode-run$i.txt 2>/dev/null
    done
  done
  for mode in any fast spread; do  # are the tiny workloads' offsets the GPU clock? (each run its own)
    for i in 1 2; do
      python3 tune/request_clocks.py /tmp/k/requests22-$mode-run$i.txt >/tmp/k/request-clocks22-$mode-run$i.txt 2>&1
      tail -n 1 /tmp/k/request-clocks22-$mode-run$i.txt
    done
  done
  echo "fast CPUs per request (run 1):"
  grep -o "[0-9]* fast CPUs of [0-9]*" /tmp/k/requests22-fast-run1.txt | sort | uniq -c | sort -rn | head -5
fi
TIMING_FIRST=1 TIMING_ARGS="--warmup-ms 2 --ci-budget-ms 40" tune/h200_call_k.sh
