#!/usr/bin/env bash
# The next device call after session 31, one background command (tune/h200_bg.sh start
# 'tune/h200_call_m.sh'):
# 1. tune/host_cpus.py: does a blocking call's host time follow the CPU? (about 30 s)
# 2. the 22 noisiest tasks of session 31 (tune/h200_call_l.sh's), two runs, unpinned and with
#    --timing-cpus PIN (PIN: env, else the four CPUs host_cpus.py found fastest for masked_select);
# 3. tune/h200_call_k.sh (the 176 references timed twice with a shared reference cache, then the
#    draws to DEADLINE_S), its TIMING_ARGS with --timing-cpus PIN when PIN_FULL=1.
# Files: /tmp/k/* as tune/h200_call_k.sh writes them, plus host-cpus.txt and repeat22-*.txt.
#   env: PIN, PIN_FULL, SKIP_22=1, and tune/h200_call_k.sh's (RUNS, DEADLINE_S, SEED_OFFSET, ...)
set -u
cd "$(dirname "$0")/.."
export K_T0=$(date +%s)  # DEADLINE_S counts from here
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
python3 tune/host_cpus.py 300 >/tmp/k/host-cpus.txt 2>&1
cat /tmp/k/host-cpus.txt
pin="${PIN:-$(python3 - <<'PY'
import collections
rows = [l.split() for l in open("/tmp/k/host-cpus.txt") if l[:3].strip().isdigit()]
best = collections.defaultdict(list)
for r in rows:
    best[int(r[0])].append(float(r[2]))  # masked_select, both passes
fastest = sorted(best, key=lambda c: max(best[c]))[:4]
print(",".join(str(c) for c in sorted(fastest)))
PY
)}"
echo "timing CPUs: ${pin:-none found (host_cpus.py failed): the pinned runs are skipped}"
if [ -z "${SKIP_22:-}" ]; then
  for mode in unpinned ${pin:+pinned}; do
    extra=""
    [ "$mode" = pinned ] && extra="--timing-cpus $pin"
    RESULTS=/tmp/kbx-m-$mode RUN_TIMEOUT_S=110 \
      EVAL_ARGS="--warmup-ms 2 --ci-budget-ms 40 $extra" \
      tools/h200_repeat.sh 2 "$(sed -n 's/^tasks+\{0,1\}=\"\(.*\)\"$/\1/p' tune/h200_call_l.sh | tr -d '\n' | sed 's/^,//')" \
      >/tmp/k/repeat22-$mode.txt 2>&1
    echo "== 22 tasks, $mode"; tail -n 25 /tmp/k/repeat22-$mode.txt
  done
fi
args="--warmup-ms 2 --ci-budget-ms 40"
[ -n "${PIN_FULL:-}" ] && [ -n "$pin" ] && args+=" --timing-cpus $pin"
TIMING_FIRST=1 TIMING_ARGS="$args" tune/h200_call_k.sh
