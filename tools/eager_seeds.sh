#!/usr/bin/env bash
# PyTorch eager against the contracts over many input draws (issue 5: a correct kernel must never
# fail by chance): `kbx suite check --controls eager` in chunks of CHUNK draws per case, each chunk
# with its own base seed and the reference outputs kept in memory only (--no-output-cache: the cases
# of 1,000 draws would not fit on disk), then a table of draws passed per task and every failure.
# usage: tools/eager_seeds.sh SEEDS [CHUNK (20)] [TASK_GLOB ...]
#   env: DEVICE (cuda where nvidia-smi works, else cpu), RESULTS (/tmp/kbx-seeds), KBX, OUT, JOBS,
#        REF_WORKERS (kbx suite check --reference-workers), SEED_BASE (1000: chunk b uses base seed
#        SEED_BASE + b; give each run its own range, or its draws repeat an earlier run's),
#        BUDGET_S (start no chunk that the slowest chunk so far says would end past this many
#        seconds; the table then counts the draws that ran), CASES (kbx suite check --cases: only
#        the cases whose names match these comma-separated globs, e.g. the cases a change added)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
seeds="${1:?usage: tools/eager_seeds.sh SEEDS [CHUNK] [TASK_GLOB ...]}"
chunk="${2:-20}"
shift $(( $# >= 2 ? 2 : 1 ))
results="${RESULTS:-/tmp/kbx-seeds}"
device="${DEVICE:-$(nvidia-smi >/dev/null 2>&1 && echo cuda || echo cpu)}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py"
if [ -z "${KBX:-}" ]; then
  if [ "$device" = cuda ]; then tools/build_device.sh "$results/build.log" || exit 1; KBX=build-device/kbx
  else KBX=build/kbx; fi
fi
chunks=$(( (seeds + chunk - 1) / chunk ))
seed_base="${SEED_BASE:-1000}"
t0=$(date +%s)
slowest=0
ran=0
broken=""  # chunks whose kbx run ended with neither 0 (all as expected) nor 1 (some unexpected)
for ((b = 0; b < chunks; b++)); do
  n=$(( b == chunks - 1 ? seeds - b * chunk : chunk ))
  if [ -n "${BUDGET_S:-}" ] && (( $(date +%s) - t0 + slowest > BUDGET_S )); then
    echo "budget: ${BUDGET_S} s would be passed by chunk $((b + 1)); stopping after $ran draws"
    break
  fi
  c0=$(date +%s)
  "$KBX" suite check "$@" --controls eager --seeds "$n" --seed $((seed_base + b)) --no-perf --device "$device" \
    ${JOBS:+--jobs "$JOBS"} ${REF_WORKERS:+--reference-workers "$REF_WORKERS"} ${CASES:+--cases "$CASES"} --no-output-cache \
    -o "$results/chunk$b" --cache-dir "$results/cache" >"$results/chunk$b.log" 2>&1
  rc=$?
  rm -rf "$results/cache"
  (( $(date +%s) - c0 > slowest )) && slowest=$(( $(date +%s) - c0 ))
  if (( rc == 0 || rc == 1 )); then ran=$(( ran + n )); else broken+=" $((b + 1))"; fi
  echo "chunk $((b + 1))/$chunks: $n draws, base seed $((seed_base + b)), exit $rc, $(( $(date +%s) - t0 )) s so far"
done
"$py" - "$results" "$chunk" "$ran" "$device" <<'PY'
import glob, sqlite3, sys
results, chunk, seeds, device = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
passed, failed, cases, seconds = {}, {}, {}, {}
for db_path in sorted(glob.glob(f"{results}/chunk*/kbx.db")):
    db = sqlite3.connect(db_path)
    for key, sid, outcome, reason, detail, total_ms in db.execute(
            "SELECT s.task_key, s.submission_id, e.outcome, e.reason, e.detail, e.time_total_ms "
            "FROM evaluations e JOIN submissions s USING (submission_id)"):
        n = db.execute("SELECT COUNT(*) FROM cases WHERE submission_id = ?", (sid,)).fetchone()[0]
        cases[key] = cases.get(key, 0) + n
        seconds[key] = seconds.get(key, 0.0) + (total_ms or 0.0) / 1000
        if outcome == "ok":
            passed[key] = passed.get(key, 0) + 1
        else:
            bad = db.execute("SELECT name, status, reason, detail FROM cases WHERE submission_id = ? "
                             "AND status != 'ok'", (sid,)).fetchall()
            failed.setdefault(key, []).append((db_path, outcome, reason, detail, bad))
keys = sorted(set(passed) | set(failed))
chunks = -(-seeds // chunk)
print(f"{len(keys)} tasks, {seeds} draws per case in {chunks} chunks on {device}; "
      f"{sum(cases.values())} cases run")
print(f"{'task':<52} {'chunks ok':>9} {'cases':>8}")
for k in keys:
    mark = "" if k not in failed else "  FAILED"
    print(f"{k:<52} {passed.get(k, 0):>5}/{chunks:<3} {cases.get(k, 0):>8}{mark}")
for k, fails in failed.items():
    for db_path, outcome, reason, detail, bad in fails:
        print(f"\n{k} in {db_path}: {outcome} {reason}: {detail[:300]}")
        for name, status, r, d in bad[:5]:
            print(f"  {name}: {status} {r} {d[:300]}")
slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:12]
print(f"\nslowest tasks (evaluation wall time summed over chunks, {sum(seconds.values()):.0f} s in all): "
      + ", ".join(f"{k} {v:.0f} s" for k, v in slowest))
print(f"\ntasks with a failure: {len(failed)} of {len(keys)}")
sys.exit(1 if failed else 0)
PY
rc=$?
if [ -n "$broken" ]; then
  echo "chunks that did not run to the end (kbx exit neither 0 nor 1; their draws are not counted):$broken"
  rc=2
fi
[ -n "${OUT:-}" ] && tar czf "$OUT/seeds.tgz" -C "$results" --exclude cache --exclude '*.db-wal' . 2>/dev/null
exit $rc
