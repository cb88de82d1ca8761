#!/usr/bin/env bash
# `kbx suite check` on a GPU, one category at a time, in one call (device tool or any CUDA machine):
# builds kbx when build-device/kbx is missing (using the SQLite headers and static library carried
# in .device/sqlite when the machine has none), then checks the given categories (default: all)
# with perf on, and prints per category: tasks, controls, unexpected verdicts and wall time, then
# the reference-against-itself speedup of every task outside 0.9-1.1x.
# usage: tools/h200_suite.sh [CATEGORY ...]     env: SEEDS (3), RESULTS (/tmp/kbx-suite), OUT
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-suite}"
seeds="${SEEDS:-3}"
mkdir -p "$results"
export KBX_PYTHON="$py" KBX_CACHE_DIR="$results/cache" TRITON_CACHE_DIR="$results/triton-cache"

tools/build_device.sh "$results/build.log" || exit 1
kbx="${KBX:-build-device/kbx}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
git log -1 --format='commit %h %s' 2>/dev/null || true

if [ $# -eq 0 ]; then
  set -- $(ls suites/kernelbenchx)
fi
printf '\n%-16s %6s %9s %11s %8s\n' category tasks controls unexpected wall_s
for cat in "$@"; do
  t0=$(date +%s.%N)
  "$kbx" suite check "$cat/*" --device cuda --seeds "$seeds" -o "$results/$cat" >"$results/$cat.log" 2>&1
  t1=$(date +%s.%N)
  line=$(grep '^suite check:' "$results/$cat.log" | tail -1)
  tasks=$(echo "$line" | sed -n 's/.*check: \([0-9]*\) tasks.*/\1/p')
  controls=$(echo "$line" | sed -n 's/.*tasks, \([0-9]*\) controls.*/\1/p')
  bad=$(echo "$line" | sed -n 's/.*expected, \([0-9]*\) unexpected.*/\1/p')
  printf '%-16s %6s %9s %11s %8.1f\n' "$cat" "${tasks:-?}" "${controls:-?}" "${bad:-?}" \
    "$("$py" -c "print($t1 - $t0)")"
done
echo
grep -h '^UNEXPECTED' "$results"/*.log | cut -c1-240 || true
"$py" tools/check_speedups.py "$results"/*/ --low 0.9 --high 1.1
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/suite-check.tgz" -C "$results" --exclude cache --exclude triton-cache . 2>/dev/null
fi
