#!/usr/bin/env bash
# Session 39's third device call (about 120 s): where eig's two speed levels come from. Its long
# LAPACK calls (GPU busy about 22%) read 5 samples each, and in a run of host-heavy tasks those
# samples fell on two levels about 1.4x apart (eig workload 4: 209-215 ms and 292-309 ms in one
# set), so the median of 5 swung 0.75-1.37x between candidate and reference. Here eig alone
# (references as submissions, `--reference-timing session`: the reference timed up front, the
# candidate, then the reference again next to it), once per `--timing-cpus` mode, printing every
# sample of workloads 3 and 4. Two levels alone, with nothing else on the host, point at where
# the process's threads sit (spread moves only the timing thread, not torch's helper threads).
# usage: tune/h200_call_u.sh   (the carried build in .device/bin)
set -u
cd "$(dirname "$0")/.."
mkdir -p build-device && cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so
R=/tmp/kbx-eig
rm -rf "$R" && mkdir -p "$R"
python3 tools/references_as_submissions.py "$R/refs.jsonl" --tasks LinearAlgebra/eig.py >/dev/null
lscpu | grep -E "^(CPU\(s\)|Thread|Core|Socket|NUMA node\(s\))" | tr -s ' '
for mode in spread any fast; do
  t0=$(date +%s)
  KBX_PYTHON=python3 KBX_CACHE_DIR="$R/cache-$mode" TRITON_CACHE_DIR="$R/triton" build-device/kbx eval \
    "$R/refs.jsonl" -o "$R/$mode" --device cuda --no-require-triton --reference-timing session \
    --timing-cpus "$mode" --warmup-ms 2 --ci-budget-ms 40 >"$R/$mode.log" 2>&1
  echo "== $mode: exit $?, $(( $(date +%s) - t0 )) s"
  python3 - "$R/$mode/kbx.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for name, table, samples in (("reference (up front)", "reference_timings", "reference_samples"),
                             ("candidate", "candidate_timings", "candidate_samples"),
                             ("reference (next to it)", "submission_reference_timings",
                              "submission_reference_samples")):
    for w, xs, host in db.execute(
            f"SELECT t.workload_index, group_concat(printf('%.1f', x.time_ms), ' '), t.host_ms "
            f"FROM {table} t JOIN {samples} x USING (timing_id) WHERE t.workload_index >= 3 "
            f"GROUP BY t.timing_id ORDER BY t.workload_index"):
        print(f"  {name:<24} w{w}: {xs}")
PY
done
