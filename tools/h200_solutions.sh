#!/usr/bin/env bash
# kbx's expert kernels (solutions/) on a GPU in one call (device tool or any CUDA machine): builds kbx
# if needed, evaluates the folder with perf, and prints each task's verdict, speedup over eager with
# its 95% interval, and the bandwidth or compute it reached (issue 8's speed bar).
# usage: tools/h200_solutions.sh [TASK_GLOB ...]     env: RESULTS (/tmp/kbx-solutions), OUT
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-solutions}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py"
tools/build_device.sh "$results/build.log" || exit 1
kbx="${KBX:-build-device/kbx}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
git log -1 --format='commit %h %s' 2>/dev/null || true
# The device's ceilings first (no reference timings), so every result carries its utilisation.
"$kbx" calibrate --device cuda --no-timings --cache-dir "$results/cache" --python "$py" 2>/dev/null
"$py" tests/model_kernels/check.py --kbx "$kbx" --python "$py" --device cuda --dir solutions \
  --work "$results/work" --cache-dir "$results/cache" ${1:+--only "$@"} | tail -3
"$kbx" summary "$results/work/run"
"$py" - "$results/work/run/kbx-results.json" <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))["submissions"]
print(f"{'task':<44} {'outcome':<10} {'speedup':>8} {'95% interval':>17} {'verdict':<9} {'GB/s':>8} {'TFLOPS':>7} {'bw%':>5} {'mm%':>5}")
pct = lambda v: f"{100 * v:5.0f}" if v is not None else "    -"
speedups = []
for r in rows:
    s = r.get("speedup") or 0
    lo, hi = r.get("speedup_ci_low"), r.get("speedup_ci_high")
    ci = f"[{lo:.3f}, {hi:.3f}]" if lo is not None and hi is not None else "-"
    if r.get("perf_ok") and s > 0:
        speedups.append(s)
    print(f"{r['file']:<44} {r.get('outcome', '?'):<10} {s:>7.3f}x {ci:>17} {r.get('speedup_verdict', '-'):<9} "
          f"{r.get('gbs', 0):>8.1f} {r.get('tflops', 0):>7.2f} {pct(r.get('bandwidth_utilisation'))} "
          f"{pct(r.get('compute_utilisation'))}{' suspect' if r.get('utilisation_suspect') else ''}")
if speedups:
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups))
    print(f"geomean {geo:.3f}x over {len(speedups)} timed; below 0.8x: {sum(s < 0.8 for s in speedups)}; "
          f"above 2x: {sum(s > 2 for s in speedups)}")
PY
[ -n "${OUT:-}" ] && cp "$results/work/run/kbx.db" "$OUT/solutions.db"
exit 0
