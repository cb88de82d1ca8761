#!/usr/bin/env bash
# The next session's device call (tune/h200_bg.sh start 'tune/h200_call_ag.sh' 540, then wait,
# then finish with /tmp/k-texts.tar.xz '/tmp/k/*.txt'; `tune/h200_bg.sh stop` before timing
# anything else on the machine):
# - first, on any card, tune/triton_driver_profile.py (where a worker start's 360-430 ms of
#   `triton_driver` go; about 15 s). Session 45's guess, in the tree since: no harvest ever primed
#   the compile cache with Triton's driver module in a run of references (they compile nothing),
#   so every worker built cuda_utils with the C compiler; now the first worker of a cache root
#   gets a priming harvester. The gaps files' `triton_driver` median should fall to tens of ms;
# - on an H200: tune/h200_call_y.sh (the GPU-only exploits, then issue 5's pending PyTorch eager
#   draws for DRAWS_S seconds, base seeds from SEED_BASE);
# - on any other card, the GPU-only exploits (46 and 52 with a speedup bound), then issue 7's
#   wall: the 176 references as submissions, three runs (fresh, then two cached) with the defaults
#   and three with `--long-call-samples 3 --short-call-budget-ms 12` (session 45's H100: cached
#   162.7 -> 150.3 s; its third runs overlapped a leftover run and were void);
#   tools/repeatability.py over the runs, each setting's first cached run's profile, and a count of
#   honest references the stream check timed by brackets or fresh calls. About 1,200 s.
source "$(dirname "$0")/device_prologue.sh"
python3 tune/triton_driver_profile.py 2>&1 | tee /tmp/k/triton_driver.txt
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh
  exit
fi
# The GPU-only exploits (call_y runs them on an H200): 46 and 52 with the runner's speedup check.
timeout 300 python3 tests/exploits/run_exploits.py --kbx build-device/kbx --device cuda \
  --only 40,41,42,43,44,46,47,50,51,52 2>&1 | tail -n 13 | tee /tmp/k/exploits.txt
texts() { tar -C /tmp/k -cJf /tmp/k-texts.tar.xz $(cd /tmp/k && ls *.txt); }
series() {  # NAME EXTRA_FLAGS: run 1 fresh, runs 2 and 3 reading its reference timings
  local R=/tmp/kbx-tc-$1
  RESULTS=$R RUNS=3 EVAL_ARGS="--trace $R/trace@RUN@.json --warmup-ms 2 --ci-budget-ms 40 $2" \
    tools/h200_timing_cache.sh 2>&1 | tee /tmp/k/runs-$1.txt
  python3 tune/timing_profile.py $R/trace2.json $R/run2/kbx.db >/tmp/k/profile-$1.txt 2>&1
  python3 tune/trace_gaps.py $R/trace2.json --min-gap-s 1.0 >/tmp/k/gaps-$1.txt 2>&1
  notes $R/run1 $R/run2 $R/run3 | tee -a /tmp/k/notes-$1.txt
  texts
}
notes() {  # RUN_DIR...: honest references whose timing the stream check changed (956806c's rule)
  for d in "$@"; do
    python3 - "$d/kbx.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select s.origin, e.perf_note from evaluations e join submissions s "
                  "on s.submission_id = e.submission_id").fetchall()
kept = [o for o, n in rows if n and "did less GPU work" in n]
escaped = [o for o, n in rows if n and "escaped the timed stream" in n]
print(f"{sys.argv[1]}: {len(rows)} evaluations; kept work (fresh_calls) {len(kept)}, "
      f"escaped the events (brackets) {len(escaped)}", kept[:5], escaped[:5])
PY
  done
}
repeat() {  # every run so far, into /tmp/k/repeat.txt
  python3 tools/repeatability.py $(ls -d /tmp/kbx-tc-*/run[123]) 2>&1 | tee /tmp/k/repeat.txt \
    | grep -v "^  "
  texts
}
series default ""
series long3short12 "--long-call-samples 3 --short-call-budget-ms 12"
repeat
