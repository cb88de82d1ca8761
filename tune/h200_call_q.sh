#!/usr/bin/env bash
# Session 37's device call, one background command (tune/h200_bg.sh start 'tune/h200_call_q.sh'
# 545, then tune/h200_bg.sh finish 280), about 800 s:
# 1. what a CUDA context costs and what makes it cheaper (tune/context_cost.py, about 90 s;
#    /tmp/k/context-cost.txt): with starts held only around their context (784a995), a cached
#    suite run is timing (108 s on session 36's H100) plus about 185 contexts the driver
#    serialises (0.3-0.5 s each);
# 2. tune/h200_call_p.sh: a smoke run, then the 176 references timed three times, the start
#    overlap by phase (start-overlapN.txt: workloads beside the unheld part of a start, expected
#    0 slowed) and the out-of-memory counts.
# Files: /tmp/k/*.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so timeout 240 python3 tune/context_cost.py 4 2 8 \
  >/tmp/k/context-cost.txt 2>&1
cat /tmp/k/context-cost.txt
tune/h200_call_p.sh
