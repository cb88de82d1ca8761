#!/usr/bin/env python3
"""Speedups of the `eager` controls of `kbx suite check` runs: the reference timed against itself.

usage: tools/check_speedups.py OUT_DIR [OUT_DIR ...] [--low 0.9] [--high 1.1]

Prints how many tasks fall inside [low, high] and lists the others; exits 1 when any is outside
or has no perf figures.
"""

import argparse
import pathlib
import sqlite3
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from stage_report import speedups  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=pathlib.Path)
    ap.add_argument("--low", type=float, default=0.9)
    ap.add_argument("--high", type=float, default=1.1)
    a = ap.parse_args()
    rows = []
    for run in a.runs:
        db = run / "kbx.db"
        if not db.exists():
            continue
        con = sqlite3.connect(db)
        sp = speedups(con)
        for sid, key, outcome, note in con.execute(
                "SELECT e.submission_id, s.task_key, e.outcome, e.perf_note FROM evaluations e "
                "JOIN submissions s USING (submission_id) WHERE s.code LIKE '%control ''eager''%'"):
            ratio = sp[sid][0] / sp[sid][1] if sid in sp and sp[sid][1] > 0 else None
            rows.append((key, outcome, ratio, note))
    inside = [r for r in rows if r[2] is not None and a.low <= r[2] <= a.high]
    print(f"eager speedup within {a.low}-{a.high}x: {len(inside)} of {len(rows)} tasks")
    for key, outcome, ratio, note in sorted(rows):
        if ratio is None or not a.low <= ratio <= a.high:
            shown = f"{ratio:.3f}x" if ratio is not None else f"no perf ({outcome}: {note})"
            print(f"  {key}: {shown}")
    return 0 if rows and len(inside) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
