#!/usr/bin/env bash
# One device call (session 25, issue 5): PyTorch eager against the contracts on the H200, all 176
# tasks, DRAWS draws in one chunk, with a trace of where the time goes (tools/trace_summary.py).
# usage: tune/h200_call_h.sh [DRAWS (25)] [JOBS (12)] [LIMIT_S (520)] [TASK_GLOB ...]
#   env: REF_WORKERS (--reference-workers), EXTRA (more suite check options)
set -u
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
draws="${1:-25}"; jobs="${2:-12}"; limit="${3:-520}"; shift $(( $# >= 3 ? 3 : $# ))
export KBX_PYTHON=python3
t0=$(date +%s.%N)
/usr/bin/time -v timeout -s INT "$limit" build-device/kbx suite check "$@" --controls eager --seeds "$draws" \
  --seed 2000 --no-perf --device cuda --jobs "$jobs" -o /tmp/chk --cache-dir /tmp/chk-cache \
  ${REF_WORKERS:+--reference-workers "$REF_WORKERS"} ${EXTRA:-} --trace "$OUT/trace.json" > "$OUT/check.txt" 2> "$OUT/check.err"
echo "exit $? after $(python3 -c "import time;print(round(time.time()-$t0,1))") s"
grep -E "Maximum resident|Elapsed|User time|System time" "$OUT/check.err"
tail -5 "$OUT/check.txt"
python3 - <<'PY'
import sqlite3
db = sqlite3.connect("/tmp/chk/kbx.db")
print("evaluations:", db.execute("SELECT outcome, COUNT(*) FROM evaluations GROUP BY outcome").fetchall())
print("cases:", db.execute("SELECT status, COUNT(*) FROM cases GROUP BY status").fetchall())
for row in db.execute("SELECT s.task_key, e.outcome, e.reason, substr(e.detail,1,200) FROM evaluations e "
                      "JOIN submissions s USING (submission_id) WHERE e.outcome != 'ok' LIMIT 20"):
    print("  ", row)
PY
python3 tools/trace_summary.py "$OUT/trace.json" | head -60
du -sh /tmp/chk-cache 2>/dev/null
