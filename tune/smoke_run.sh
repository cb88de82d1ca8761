#!/usr/bin/env bash
# A device call's smoke run: the given references as submissions with perf, into /tmp/smoke, the
# summary and each task's outcome in /tmp/k/smoke.txt; exits 0 only when every one is ok.
# usage: tune/smoke_run.sh TASKS (comma-separated task files)   env: DEVICE (cuda)
set -u
cd "$(dirname "$0")/.." || exit 1
s=/tmp/smoke
rm -rf "$s" && mkdir -p "$s" /tmp/k
t0=$(date +%s)
python3 tools/references_as_submissions.py "$s/refs.jsonl" --tasks "${1:?usage: tune/smoke_run.sh TASKS}"
want=$(wc -l <"$s/refs.jsonl")
KBX_CACHE_DIR="$s/cache" TRITON_CACHE_DIR="$s/triton" KBX_PYTHON="${KBX_PYTHON:-python3}" \
  "${KBX:-build-device/kbx}" eval "$s/refs.jsonl" -o "$s/run" --device "${DEVICE:-cuda}" \
  --no-require-triton --trace "$s/trace.json" --warmup-ms 2 --ci-budget-ms 40 >"$s/log.txt" 2>&1
rc=$?
ok=$(sed -n 's/^Outcomes:.*\bok \([0-9]*\).*/\1/p' "$s/log.txt")
{ echo "smoke: exit $rc, $ok of $want ok, $(( $(date +%s) - t0 )) s"; tail -n 25 "$s/log.txt"; } | tee /tmp/k/smoke.txt
"${KBX_PYTHON:-python3}" - "$s/run/kbx.db" <<'PY' | tee -a /tmp/k/smoke.txt
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT s.task_key, e.outcome, e.reason, substr(e.detail, 1, 300) "
                      "FROM evaluations e JOIN submissions s USING (submission_id)"):
    print(*row)
PY
[ "$rc" = 0 ] && [ "$ok" = "$want" ]
