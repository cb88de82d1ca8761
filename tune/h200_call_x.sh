#!/usr/bin/env bash
# Session 41's short device call (what 500 s of device time left allow; prints everything):
# 1. tune/process_offset.py 6 1000 (about 60 s): what in a process sets its offset on short calls;
# 2. the 176 references as submissions once, fresh caches (`--reference-timing session`), each
#    task's reference timed by one of four reference workers (9eaedd7, 30f123b), stopped by
#    SIGINT at DEADLINE_S (360) seconds from the start: tools/repeatability.py's signed
#    self-check and tune/offset_split.py --lanes 4 (the offset per reference worker).
# usage: [DEADLINE_S=360] tune/h200_call_x.sh   (the carried build in .device/bin)
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
timeout 90 python3 tune/process_offset.py 6 1000
R=/tmp/kbx-x
rm -rf "$R" && mkdir -p "$R"
python3 tools/references_as_submissions.py "$R/refs.jsonl" >/dev/null
left=$(( ${DEADLINE_S:-360} - ($(date +%s) - t0) ))
s0=$(date +%s)
KBX_PYTHON=python3 KBX_CACHE_DIR="$R/cache" TRITON_CACHE_DIR="$R/triton" timeout -s INT "$left" \
  build-device/kbx eval "$R/refs.jsonl" -o "$R/run1" --device cuda --no-require-triton \
  --reference-timing session --warmup-ms 2 --ci-budget-ms 40 >"$R/run1.log" 2>&1
echo "run 1: exit $?, $(( $(date +%s) - s0 )) s, $(grep -c ' ok ' "$R/run1.log") ok"
grep -E "^Outcomes|reference timings" "$R/run1.log" | tail -3
python3 tools/repeatability.py "$R/run1" | grep -v "^  "
python3 tune/offset_split.py --lanes 4 "$R/run1"
