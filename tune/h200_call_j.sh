#!/usr/bin/env bash
# Device calls (session 26, issue 5): PyTorch eager against the contracts on the H200, all 176 tasks,
# run in the background across several calls so that no chunk is cut by a call's 10-minute limit:
# `start` copies the tree to /tmp/r, starts tools/eager_seeds.sh there in a session of its own
# (setsid: it outlives the call) and waits; `wait` waits and reports; `finish` waits for the end and
# puts the table and the chunks' stores under $OUT. Each report also samples the GPU's utilisation
# and the host's load once every 30 s (what bounds the check's throughput).
# usage: tune/h200_call_j.sh start SEED_BASE BUDGET_S [CHUNK (40)] [WAIT_S (540)]
#        tune/h200_call_j.sh wait [WAIT_S (570)]
#        tune/h200_call_j.sh finish [WAIT_S (570)]
#   env: JOBS (12), REF_WORKERS (8); PRE_TASKS (task globs, space-separated), PRE_DRAWS, PRE_CHUNK,
#        PRE_SEED_BASE: beside the main check, PRE_DRAWS more draws of those tasks (tasks changed
#        since the main run's earlier draws), results in /tmp/seeds-pre, table in /tmp/seeds-pre.txt
set -u
mode="${1:?usage: tune/h200_call_j.sh start|wait|finish ...}"
log=/tmp/seeds.txt
done_file=/tmp/seeds.rc

report() {  # waits up to $1 seconds (less once the check has ended), sampling the machine
  local until=$(( $(date +%s) + $1 ))
  while [ ! -f "$done_file" ] && (( $(date +%s) < until )); do
    echo "$(date +%T) $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader) load $(cut -d' ' -f1 /proc/loadavg)" >>/tmp/samples.txt
    local left=$(( until - $(date +%s) ))
    sleep $(( left < 30 ? (left > 0 ? left : 0) : 30 ))
  done
  [ -f /tmp/seeds-pre.txt ] && grep -E "^chunk|^tasks with|FAILED" /tmp/seeds-pre.txt
  grep -E "^chunk|^budget" "$log" 2>/dev/null
  tail -4 /tmp/samples.txt
  [ -f "$done_file" ] && echo "check ended: exit $(cat "$done_file")"
  return 0
}

case "$mode" in
  start)
    rm -rf /tmp/r /tmp/seeds /tmp/seeds-pre /tmp/seeds-pre.txt "$log" "$done_file" /tmp/samples.txt && mkdir -p /tmp/r && cp -a . /tmp/r/
    cd /tmp/r || exit 1
    mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
    setsid nohup env KBX=build-device/kbx KBX_PYTHON=python3 JOBS="${JOBS:-12}" REF_WORKERS="${REF_WORKERS:-8}" \
      SEED_BASE="$2" BUDGET_S="$3" RESULTS=/tmp/seeds OUT= \
      PRE_TASKS="${PRE_TASKS:-}" PRE_DRAWS="${PRE_DRAWS:-0}" PRE_CHUNK="${PRE_CHUNK:-100}" PRE_SEED_BASE="${PRE_SEED_BASE:-0}" \
      bash -c "if [ -n \"\$PRE_TASKS\" ]; then SEED_BASE=\$PRE_SEED_BASE BUDGET_S= RESULTS=/tmp/seeds-pre \
                 tools/eager_seeds.sh \$PRE_DRAWS \$PRE_CHUNK \$PRE_TASKS >/tmp/seeds-pre.txt 2>&1 & fi
               tools/eager_seeds.sh 1000 ${4:-40} >$log 2>&1; rc=\$?; wait; echo \$rc >$done_file" </dev/null >/dev/null 2>&1 &
    sleep 5
    report "${5:-540}"
    ;;
  wait)
    report "${2:-570}"
    ;;
  finish)
    report "${2:-570}"
    cp "$log" /tmp/samples.txt /tmp/seeds-pre.txt "$OUT/" 2>/dev/null
    grep -vE "^chunk|^budget" "$log" | grep -v " ok \| [0-9]*/[0-9]* *[0-9]*$" | head -40
    tail -3 "$log"
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
