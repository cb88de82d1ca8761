#!/usr/bin/env bash
# Device calls: any long command on the device machine as one background run across several calls
# (each call is limited to 10 minutes; a run under setsid outlives it). `start` copies the tree to
# /tmp/r, puts the carried build (.device/bin) in build-device/, starts CMD there and waits;
# `wait` waits and reports; `finish` waits, reports and copies FILES (globs under /tmp/r or
# absolute) to $OUT. Reports show the log's last lines and sample the GPU and host every 30 s.
# usage: tune/h200_bg.sh start 'CMD' [WAIT_S (540)]
#        tune/h200_bg.sh wait [WAIT_S (540)] [LINES (30)]
#        tune/h200_bg.sh finish [WAIT_S (540)] [FILES ...]
#        tune/h200_bg.sh stop
# `stop` ends the whole command: every process of its session (setsid's), then any kbx left. Use
# it before timing anything else on the machine: killing the outer script alone leaves its
# children running (session 45: a pair's second run went on under two timed runs, which then
# read 61-67 of 176 tasks outside 0.95-1.05x).
# The log is /tmp/bg.log; the command's exit status lands in /tmp/bg.rc. Keep WAIT_S a few
# seconds under the call's limit: the report itself takes about a second.
set -u
mode="${1:?usage: tune/h200_bg.sh start|wait|finish ...}"
log=/tmp/bg.log
done_file=/tmp/bg.rc

report() {  # waits up to $1 seconds (less once the command has ended), then prints the log's tail
  local until=$(( $(date +%s) + $1 ))
  while [ ! -f "$done_file" ] && (( $(date +%s) < until )); do
    echo "$(date +%T) $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null) load $(cut -d' ' -f1 /proc/loadavg)" >>/tmp/bg-samples.txt
    local left=$(( until - $(date +%s) ))
    sleep $(( left < 30 ? (left > 0 ? left : 0) : 30 ))
  done
  tail -n "${2:-30}" "$log"
  tail -2 /tmp/bg-samples.txt 2>/dev/null
  [ -f "$done_file" ] && echo "command ended: exit $(cat "$done_file")"
  return 0
}

case "$mode" in
  start)
    cmd="${2:?start needs a command}"
    rm -rf /tmp/r "$log" "$done_file" /tmp/bg-samples.txt && mkdir -p /tmp/r && cp -a . /tmp/r/
    cd /tmp/r || exit 1
    mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
    setsid nohup bash -c "$cmd >$log 2>&1; echo \$? >$done_file" </dev/null >/dev/null 2>&1 &
    echo $! >/tmp/bg.pid  # setsid's pid: the session's and its process group's id
    sleep 2
    report "${3:-540}"
    ;;
  wait)
    report "${2:-540}" "${3:-30}"
    ;;
  finish)
    report "${2:-540}"
    shift $(( $# >= 2 ? 2 : 1 ))
    cp "$log" /tmp/bg-samples.txt "$OUT/" 2>/dev/null
    cd /tmp/r 2>/dev/null && for f in "$@"; do cp -r $f "$OUT/" 2>/dev/null; done
    ;;
  stop)
    if [ -f /tmp/bg.pid ]; then
      kill -TERM -- -"$(cat /tmp/bg.pid)" 2>/dev/null
      sleep 3
      kill -KILL -- -"$(cat /tmp/bg.pid)" 2>/dev/null
    fi
    pkill -KILL -f 'build-device/kbx' 2>/dev/null
    sleep 1
    echo "stopped; left: $(pgrep -fc 'build-device/kbx|h200_timing_cache|eager_seeds') processes"
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
