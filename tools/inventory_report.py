#!/usr/bin/env python3
"""Prints the kernel inventory of a kbx run: per submission its verdict, Triton's share of the GPU
time, and the kernels that took the most GPU time in the cases and the timed calls.

usage: tools/inventory_report.py RUN_DIR [--top 3]
"""

import argparse
import json
import pathlib
import sqlite3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=pathlib.Path)
    ap.add_argument("--top", type=int, default=3)
    a = ap.parse_args()
    db = sqlite3.connect(a.run / "kbx.db")
    env = json.loads(db.execute("SELECT env_json FROM sessions ORDER BY session_id DESC").fetchone()[0])
    print("kernel inventory:", env.get("sandbox", {}).get("kernel_inventory", "(not recorded)"))
    rows = db.execute("SELECT e.submission_id, s.task_key, e.outcome, e.reason, e.triton_share "
                      "FROM evaluations e JOIN submissions s USING (submission_id) "
                      "ORDER BY s.ordinal").fetchall()
    for sid, key, outcome, reason, share in rows:
        share_text = "-" if share is None else f"{100 * share:.1f}%"
        print(f"{key:<44} {outcome + (':' + reason if reason else ''):<34} triton {share_text}")
        for stage in ("cases", "perf"):
            ks = db.execute("SELECT name, origin, SUM(launches), SUM(gpu_ms) FROM kernels "
                            "WHERE submission_id = ? AND stage LIKE ? GROUP BY name, origin "
                            "ORDER BY SUM(gpu_ms) DESC, SUM(launches) DESC LIMIT ?",
                            (sid, stage + "%", a.top)).fetchall()
            for name, origin, launches, ms in ks:
                ms_text = "" if ms is None else f"{ms:.4f} ms"
                print(f"    {stage:<5} {origin:<6} {launches:>6}x {ms_text:>12}  {name[:70]}")


if __name__ == "__main__":
    main()
