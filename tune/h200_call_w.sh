#!/usr/bin/env bash
# Session 41's device call, one background command (tune/h200_bg.sh start 'tune/h200_call_w.sh'
# 520, then tune/h200_bg.sh finish 480 /tmp/k-texts.tar.xz '/tmp/k/*.xz'), about 550 s:
# 1. tune/process_offset.py 6 1000 (about 60 s): what in a process sets its offset on short
#    workloads (stream, flush buffer, inputs), into /tmp/k/process-offset.txt;
# 2. the 176 references as submissions twice (RUNS=2 tune/h200_call_p.sh): the first run with
#    each task's reference timed by one of four reference workers (9eaedd7) instead of one for
#    all; tools/repeatability.py's signed self-check and tune/offset_split.py per run then say
#    whether the suite still leans one way;
# 3. with DRAWS_S set, PyTorch eager draws of tune/h200_draws_pending.txt for that many seconds
#    (base seeds from SEED_BASE, 7500), the table in /tmp/k/draws.txt.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
[ -n "${SKIP_OFFSET:-}" ] || python3 tune/process_offset.py 6 1000 2>&1 | tee /tmp/k/process-offset.txt
RUNS="${RUNS:-2}" tune/h200_call_p.sh
R=/tmp/kbx-timing-cache
python3 tune/offset_split.py "$R"/run[0-9] 2>&1 | tee /tmp/k/offset-split.txt
if [ -n "${DRAWS_S:-}" ]; then
  KBX=build-device/kbx JOBS=12 REF_WORKERS=8 SEED_BASE="${SEED_BASE:-7500}" BUDGET_S="$DRAWS_S" \
    tools/eager_seeds.sh 1000 50 $(grep -v "^#" tune/h200_draws_pending.txt) 2>&1 | tail -n 80 \
    | tee /tmp/k/draws.txt
fi
tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt)
