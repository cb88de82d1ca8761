#!/usr/bin/env python3
"""Do worker starts beside a timing run slow its samples? Splits a run's GPU-bound workloads by
whether a candidate worker's start (a "worker start" span of `kbx eval --trace`) overlapped their
timing, and counts those whose candidate median reads slower than the reference's cached one.

A GPU-bound workload: candidate median over --min-ms, host time under half of it (calls whose
samples hold host work spread for other reasons). The ratio is reference / candidate median, the
self-check's speedup of one workload. Session 35 (two H100s, unheld starts): 8 of 74 and 9 of 56
workloads timed beside a start under 0.95x, none of 100 and 115 timed without one; with starts
held shared, none of 174 (docs/perf.md). Session 36 (unheld): 10 of 64 against 0 of 108, every
slowed one beside a start's `cuda_context` phase; since then a start holds the lock only around its
context, and the phases beside each workload are listed.

With --host, the same for host-synchronising workloads instead (the candidate's kernels busy
under half its median and over 50 us less: stats::host_synchronising), where "beside" means a
start's phase that works the host (its wait for the GPU hold left out). Session 37 (an H100,
context-only holds): 19 of 23 such workloads beside a start under 0.95x (median 0.824x), 62 of 186
without (0.984x); since 3907260 such tasks are timed with starts held off the host, so none
should be beside one (their exclusive spans say host_quiet).

usage: tune/start_overlap.py TRACE.json RUN_DIR_OR_DB [--min-ms 1] [--slow 0.95] [--host]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sqlite3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("run", help="the run's output directory (its kbx.db) or the .db itself")
    ap.add_argument("--min-ms", type=float, default=1.0)
    ap.add_argument("--slow", type=float, default=0.95)
    ap.add_argument("--host", action="store_true",
                    help="host-synchronising workloads, against starts' working phases")
    a = ap.parse_args()
    db_path = pathlib.Path(a.run)
    if db_path.is_dir():
        db_path = db_path / "kbx.db"
    events = json.load(open(a.trace))["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    starts = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e["name"] == "worker start"]
    # Each start's phases on the clock, from the worker's account (phases_ms, in start order),
    # laid back to back so that the last ends with the span (the ready message's trip is short).
    windows = []
    for e in spans:
        if e["name"] != "worker start":
            continue
        phases = e.get("args", {}).get("phases_ms") or {}
        t = e["ts"] + e["dur"] - sum(phases.values()) * 1e3
        windows.append(("fork", e["ts"], t))
        for name, ms in phases.items():
            windows.append((name, t, t + ms * 1e3))
            t += ms * 1e3
    timings = [e for e in spans if e["name"] == "candidate timing"]
    workloads = [e for e in spans if e.get("cat") == "workload"
                 and e["name"].startswith("workload ") and e["dur"] > 0]

    def task_of(w: dict) -> str | None:
        for t in timings:
            if t["tid"] == w["tid"] and t["ts"] <= w["ts"] <= t["ts"] + t["dur"]:
                return t["args"]["task"]
        return None

    db = sqlite3.connect(db_path)
    rows = db.execute(
        # A submission's own reference timing (taken right after it, 20839c3) where it has one.
        "SELECT s.task_key, c.workload_index, c.events_median_ms, "
        "COALESCE(o.events_median_ms, r.events_median_ms), c.host_ms, "
        "c.kernel_busy_ms FROM candidate_timings c JOIN submissions s USING (submission_id) "
        "JOIN reference_timings r ON r.task_key = s.task_key "
        "AND r.workload_index = c.workload_index "
        "LEFT JOIN submission_reference_timings o ON o.submission_id = c.submission_id "
        "AND o.workload_index = c.workload_index").fetchall()
    by_key = {(t, w): (ref / cand, cand, host or 0.0, busy) for t, w, cand, ref, host, busy in rows
              if cand and ref}
    quiet = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e.get("cat") == "exclusive"
             and e.get("args", {}).get("host_quiet")]
    adjacent = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e.get("cat") == "exclusive"
                and e.get("args", {}).get("reference_adjacent")]
    kind = "host-synchronising" if a.host else "GPU-bound"
    split: dict[bool, list] = {False: [], True: []}
    quiet_count = 0
    adjacent_count = 0
    for w in workloads:
        key = (task_of(w), int(w["name"].split()[1]))
        if key not in by_key:
            continue
        ratio, cand, host, busy = by_key[key]
        if a.host:
            if busy is None or not (busy < 0.5 * cand and cand - busy > 0.05):
                continue
        elif cand <= a.min_ms or host >= 0.5 * cand:
            continue
        begin, end = w["ts"], w["ts"] + w["dur"]
        if a.host:  # a start waiting for its GPU hold does not work the host
            beside = sum(1 for n, s0, s1 in windows if n != "hold_wait" and s0 < end and s1 > begin)
            quiet_count += any(q0 <= begin and end <= q1 for q0, q1 in quiet)
            adjacent_count += any(q0 <= begin and end <= q1 for q0, q1 in adjacent)
        else:
            beside = sum(1 for s0, s1 in starts if s0 < end and s1 > begin)
        phases = sorted({n for n, s0, s1 in windows if s0 < end and s1 > begin})
        split[beside > 0].append((round(ratio, 3), key[0], key[1], beside, phases))
    if a.host:
        print(f"{kind} workloads timed with starts held off the host (host_quiet): {quiet_count}; "
              f"with their reference timed right after them (reference_adjacent): {adjacent_count}")
    for beside in (False, True):
        rows_ = split[beside]
        slow = sorted(x for x in rows_ if x[0] < a.slow)
        ratios = sorted(x[0] for x in rows_)
        median = f", median {ratios[len(ratios) // 2]:.3f}x" if ratios else ""
        print(f"{'starts beside' if beside else 'no start beside'}: {len(rows_)} {kind} "
              f"workloads{median}, {len(slow)} under {a.slow}x")
        for ratio, task, index, n, phases in slow:
            print(f"  {ratio:.3f}x  {task} workload {index} ({n} starts beside: "
                  f"{', '.join(phases) or 'no phases'})")
    # Session 36: every slowed workload had overlapped a start's cuda_context phase; those beside
    # only other phases (Triton's driver glue above all) were not slowed.
    by_phase: dict[str, list[int]] = {}
    for ratio, _, _, _, phases in split[True]:
        for name in phases:
            by_phase.setdefault(name, [0, 0])[0] += 1
            by_phase[name][1] += ratio < a.slow
    if by_phase:
        print("by the start phase beside them: " + ", ".join(
            f"{name} {slow} of {n} slow" for name, (n, slow) in sorted(by_phase.items())))
        other = [r for r, _, _, _, phases in split[True] if "cuda_context" not in phases]
        print(f"beside starts but no cuda_context phase: {len(other)} workloads, "
              f"{sum(r < a.slow for r in other)} under {a.slow}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
