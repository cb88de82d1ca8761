#!/usr/bin/env bash
# The bundled examples on cuda with and without the sandbox: per task outcome, speedup, load time
# and perf note, to see what confinement costs (a fresh Triton cache per candidate) and changes.
# usage: tools/h200_examples_compare.sh      env: RESULTS (/tmp/kbx-trust)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-trust}"
mkdir -p "$results"
tools/build_device.sh "$results/build.log" || exit 1
for mode in sandbox no-sandbox; do
  flag=()
  [ "$mode" = no-sandbox ] && flag=(--no-sandbox)
  rm -rf "$results/ex-$mode"
  t0=$(date +%s.%N)
  timeout 200 build-device/kbx eval examples/predictions.jsonl -o "$results/ex-$mode" --device cuda \
    --cache-dir "$results/cache" "${flag[@]}" >"$results/ex-$mode.log" 2>&1
  t1=$(date +%s.%N)
  echo "== $mode: $("$py" -c "print(round($t1 - $t0, 1))") s"
  "$py" - "$results/ex-$mode" <<'PY'
import json, sqlite3, sys, pathlib
out = pathlib.Path(sys.argv[1])
db = sqlite3.connect(out / "kbx.db")
load = {r[0]: r[1:] for r in db.execute(
    "select submission_id, time_load_ms, time_cases_ms, time_perf_ms from evaluations")}
for m in json.loads((out / "kbx-results.json").read_text())["submissions"]:
    l = load.get(m["submission_id"], (0, 0, 0))
    print(f"  {m['file']:<34} {m['outcome']:<12} {m['speedup']:>6.2f}x load {l[0]:>6.0f} cases {l[1]:>6.0f} "
          f"perf {l[2]:>6.0f} ms  {m['perf_note'][:70]}")
PY
done
