#!/usr/bin/env python3
"""Checks that two kbx runs hold the same verdicts (timings aside): same submissions, and for each
the same outcome, reason, call/exe/triton/perf flags and per-case statuses; and the same
summary.json counts. Used by the e2e tests of kbx merge: a merge of shards must equal one run.

  same_verdicts.py RUN_A RUN_B     (the -o folders)   prints "same verdicts: N submissions"
"""

from __future__ import annotations

import json
import pathlib
import sqlite3
import sys

SUMMARY_FIELDS = ("total", "call_pass", "exe_pass", "perf_pass", "call_rate", "exe_rate", "perf_rate")


def verdicts(run: pathlib.Path) -> dict:
    with sqlite3.connect(f"file:{run / 'kbx.db'}?mode=ro", uri=True) as con:
        rows = con.execute(
            "SELECT e.submission_id, s.task_key, s.origin, e.outcome, e.reason, e.call_ok, e.exe_ok,"
            " e.triton_ok, e.perf_ok, e.task_version, e.rules FROM evaluations e"
            " JOIN submissions s USING (submission_id)").fetchall()
        cases = con.execute("SELECT submission_id, case_index, status, reason FROM cases"
                            " ORDER BY submission_id, case_index").fetchall()
    out = {r[0]: {"row": list(r[1:]), "cases": []} for r in rows}
    for sid, index, status, reason in cases:
        out[sid]["cases"].append([index, status, reason])
    return out


def summary(run: pathlib.Path) -> dict:
    s = json.loads((run / "kbx-results.json").read_text())["summary"]  # per submission, by category
    picked = {k: s.get(k) for k in SUMMARY_FIELDS}
    picked["categories"] = {name: {k: c.get(k) for k in SUMMARY_FIELDS}
                            for name, c in s.get("categories", {}).items()}
    return picked


def main() -> int:
    a, b = (pathlib.Path(p) for p in sys.argv[1:3])
    va, vb = verdicts(a), verdicts(b)
    problems = []
    for sid in sorted(set(va) | set(vb)):
        if sid not in va or sid not in vb:
            problems.append(f"{sid}: only in {a if sid in va else b}")
        elif va[sid] != vb[sid]:
            problems.append(f"{sid}: {va[sid]} != {vb[sid]}")
    sa, sb = summary(a), summary(b)
    if sa != sb:
        problems.append(f"summary.json differs: {sa} != {sb}")
    for p in problems:
        print("DIFFERENT", p)
    if problems:
        return 1
    print(f"same verdicts: {len(va)} submissions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
