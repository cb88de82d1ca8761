#!/usr/bin/env python3
"""Prints where a kbx run spent its time, per task and per stage, from its kbx.db.

usage: tools/stage_report.py OUT_DIR [--wall SECONDS] [--markdown]

Per evaluation: queue (waiting for a warm worker), load (module import), cases (test cases, Triton
JIT included), compare (in kbx), perf (candidate timing, plus the reference's when this evaluation
took it), total; and the speedup from the raw samples (sum of reference medians / sum of candidate
medians). With --wall (the run's wall-clock seconds) it also prints wall seconds per task.
"""

import argparse
import pathlib
import sqlite3
import statistics


def speedups(con):
    """submission_id -> (sum of reference medians, sum of candidate medians) over workloads."""
    cand = {}
    for sid, widx, t in con.execute(
            "SELECT ct.submission_id, ct.workload_index, s.time_ms FROM candidate_timings ct "
            "JOIN candidate_samples s USING (timing_id) WHERE ct.status = 'ok'"):
        cand.setdefault(sid, {}).setdefault(widx, []).append(t)
    ref = {}
    for sess, key, widx, t in con.execute(
            "SELECT rt.session_id, rt.task_key, rt.workload_index, s.time_ms FROM reference_timings rt "
            "JOIN reference_samples s USING (timing_id) WHERE rt.status = 'ok'"):
        ref.setdefault((sess, key), {}).setdefault(widx, []).append(t)
    out = {}
    for sid, key, sess in con.execute(
            "SELECT e.submission_id, s.task_key, e.reference_session_id FROM evaluations e "
            "JOIN submissions s USING (submission_id) WHERE e.perf_ok = 1"):
        c, r = cand.get(sid, {}), ref.get((sess, key), {})
        common = sorted(set(c) & set(r))
        if common:
            out[sid] = (sum(statistics.median(r[w]) for w in common),
                        sum(statistics.median(c[w]) for w in common))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--wall", type=float, help="the run's wall-clock seconds")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    con = sqlite3.connect(a.out / "kbx.db")
    rows = con.execute(
        "SELECT s.task_key, e.outcome, e.reason, e.time_queue_ms, e.time_load_ms, e.time_cases_ms, "
        "e.time_compare_ms, e.time_perf_ms, e.time_total_ms, e.submission_id FROM evaluations e "
        "JOIN submissions s USING (submission_id) ORDER BY s.ordinal").fetchall()
    sp = speedups(con)
    cols = ["task", "outcome", "queue ms", "load ms", "cases ms", "cmp ms", "perf ms", "total ms", "speedup"]
    fmt = "| " + " | ".join(["{}"] * len(cols)) + " |" if a.markdown else \
        "{:<44} {:<14} {:>8} {:>8} {:>9} {:>7} {:>9} {:>9} {:>8}"
    print(fmt.format(*cols))
    if a.markdown:
        print("|" + "---|" * len(cols))
    sums = [0.0] * 6
    for key, outcome, reason, *times, sid in rows:
        times = [t or 0.0 for t in times]
        sums = [x + y for x, y in zip(sums, times)]
        s = sp.get(sid)
        speed = f"{s[0] / s[1]:.2f}x" if s and s[1] > 0 else "-"
        print(fmt.format(key, outcome, *(f"{t:.0f}" for t in times), speed))
    n = max(1, len(rows))
    print(fmt.format(f"MEAN over {len(rows)}", "", *(f"{t / n:.0f}" for t in sums), ""))
    if sp:
        gl = sum(r for r, _ in sp.values()) / sum(c for _, c in sp.values())
        print(f"speedup (sum ref / sum cand over {len(sp)} timed tasks): {gl:.3f}; per-task: "
              f"min {min(r / c for r, c in sp.values()):.3f}, max {max(r / c for r, c in sp.values()):.3f}")
    if a.wall:
        print(f"wall: {a.wall:.1f} s for {len(rows)} tasks = {a.wall / n:.2f} s per task")


if __name__ == "__main__":
    main()
