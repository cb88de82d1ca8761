#!/usr/bin/env bash
# Session 38's device call, one background command (tune/h200_bg.sh start 'tune/h200_call_r.sh'
# 560, then tune/h200_bg.sh finish 300), about 800 s:
# tune/h200_call_p.sh over the tree of 3907260 and after: a smoke run, then the 176 references
# timed three times: run 1 fresh and run 2 cached, both with one hardware queue per context (the
# default since 5fa44f7), run 3 with `--cuda-connections 0` (the driver's 8 queues; the timing
# cache's key holds the setting, so run 3 times the references afresh: an A/B of the setting on
# one machine, which session 37's two calls could only make across machines).
# What to check:
# - host-overlapN.txt: host-synchronising workloads timed beside a start's working phases, now
#   expected 0 (3907260 holds the starts off the host for such tasks; session 37: 23, 19 of them
#   under 0.95x), and how many were timed with the host quiet; the run logs' "taken again with
#   worker starts held off the host" (the references timed again so: 11 tasks of session 37's
#   run 1 have a host-synchronising reference workload);
# - the self-check of the host-synchronising tasks (repeatability.txt: `masked_select`, `eig`,
#   `solve_symmetric_ldl`, `fused_cholesky_solve`, `spectral_norm_eig`, ...) against session
#   37's 0.74-1.21x;
# - walls (session 37: 147-151 s cached with one queue per context) and gapsN.txt;
# - run 1 against run 3 (same machine, fresh both): the references' medians per workload
#   (reference-shift.txt, tune/reference_shift.py: expected within 0.5% at the median of every
#   length but for host-synchronising tasks), `cuda_context` in gaps1.txt against gaps3.txt
#   (session 37: 452-475 ms against 1,304-1,421).
# Files: /tmp/k/* as tune/h200_call_p.sh writes them.
set -u
cd "$(dirname "$0")/.."
RUNS=3 RUN_ARGS_3="--cuda-connections 0" tune/h200_call_p.sh
R=/tmp/kbx-timing-cache
python3 tune/reference_shift.py "$R/run1/kbx.db" "$R/run3/kbx.db" --list 1.15 2>&1 \
  | tee /tmp/k/reference-shift.txt
