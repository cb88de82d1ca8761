#!/usr/bin/env python3
"""How far the references' timings moved between two runs: per workload, the median of run B's
samples over run A's, summarised by call length (the samples' median in run A) and, where both
runs have kernel inventories, the kernels' busy time too. For a setting's A/B on one machine
(tune/h200_call_r.sh: one hardware queue per context against the driver's 8) or the same tree on
two machines (session 37: 0.996-1.004x at the median in every length bucket, the host-bound tasks
apart).

usage: tune/reference_shift.py A.db B.db [--list 1.15]
  --list R: also list the tasks with a workload moved by over R either way, most first.
"""

from __future__ import annotations

import argparse
import collections
import sqlite3
import statistics

BUCKETS = ((0.02, "<0.02 ms"), (0.05, "0.02-0.05"), (0.2, "0.05-0.2"), (1.0, "0.2-1"),
           (10.0, "1-10"), (float("inf"), ">=10 ms"))


def load(path: str) -> dict:
    db = sqlite3.connect(path)
    out = {}
    for tid, task, w, busy in db.execute(
            "SELECT timing_id, task_key, workload_index, kernel_busy_ms FROM reference_timings "
            "WHERE status = 'ok'"):
        s = [r[0] for r in db.execute("SELECT time_ms FROM reference_samples WHERE timing_id = ?",
                                      (tid,)) if r[0] is not None]
        if s:
            out[(task, w)] = (statistics.median(s), busy)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--list", type=float, default=0.0)
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    medians: dict[str, list[float]] = collections.defaultdict(list)
    busy: dict[str, list[float]] = collections.defaultdict(list)
    moved: collections.Counter = collections.Counter()
    for key, (ma, ba) in a.items():
        if key not in b or ma <= 0:
            continue
        mb, bb = b[key]
        name = next(n for bound, n in BUCKETS if ma < bound)
        medians[name].append(mb / ma)
        if ba and bb:
            busy[name].append(bb / ba)
        if args.list and not 1 / args.list <= mb / ma <= args.list:
            moved[key[0]] += 1
    print(f"{'length':10} {'workloads':>9} {'median':>7} {'p10':>6} {'p90':>6} {'busy':>6}")
    for _, name in BUCKETS:
        v = sorted(medians[name])
        if not v:
            continue
        k = sorted(busy[name])
        kb = f"{statistics.median(k):6.3f}" if k else "     -"
        print(f"{name:10} {len(v):9} {statistics.median(v):7.3f} {v[len(v) // 10]:6.3f} "
              f"{v[9 * len(v) // 10]:6.3f} {kb}")
    if args.list:
        print(f"tasks with workloads moved over {args.list}x: " + ", ".join(
            f"{t} ({n})" for t, n in moved.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
