#!/usr/bin/env bash
# The trust checks on a GPU, in one call (device tool or any CUDA machine): builds kbx if needed
# (tools/build_device.sh), prints the kernel's sandbox features, runs the bundled examples on cuda
# (with the sandbox report and per-stage times), then the exploit zoo on cuda (run_exploits.py).
# usage: tools/h200_trust.sh [--no-examples] [--only 40,41]      env: RESULTS (/tmp/kbx-trust), OUT
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-trust}"
mkdir -p "$results"
export KBX_PYTHON="$py"
tools/build_device.sh "$results/build.log" || exit 1
kbx=build-device/kbx
examples=1
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-examples) examples=0 ;;
    --only) only=(--only "$2"); shift ;;
  esac
  shift
done
echo "kernel $(uname -r); landlock ABI $("$py" -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log -1 --format='commit %h %s' 2>/dev/null || true
if [ "$examples" = 1 ]; then
  rm -rf "$results/examples"
  t0=$(date +%s.%N)
  "$kbx" eval examples/predictions.jsonl -o "$results/examples" --device cuda --cache-dir "$results/cache" \
    >"$results/examples.log" 2>&1
  t1=$(date +%s.%N)
  tail -14 "$results/examples.log"
  echo "examples: $("$py" -c "print(round($t1 - $t0, 1))") s"
  "$py" - "$results/examples/kbx.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
env = json.loads(db.execute("select env_json from sessions order by session_id desc").fetchone()[0])
for k, v in env.get("sandbox", {}).items():
    print(f"  sandbox {k}: {v}")
print(f"  {'task':<36} {'outcome':<14} {'load_ms':>8} {'cases_ms':>9} {'perf_ms':>8}  note")
for row in db.execute("select s.task_key, e.outcome, e.time_load_ms, e.time_cases_ms, e.time_perf_ms, e.perf_note "
                      "from evaluations e join submissions s using (submission_id) order by s.ordinal"):
    print(f"  {row[0]:<36} {row[1]:<14} {row[2]:>8.0f} {row[3]:>9.0f} {row[4]:>8.0f}  {row[5][:60]}")
PY
fi
"$py" tests/exploits/run_exploits.py --kbx "$kbx" --device cuda --python "$py" \
  --cache-dir "$results/cache" --keep "$results/zoo" "${only[@]}"
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/trust.tgz" -C "$results" --exclude cache . 2>/dev/null
fi
