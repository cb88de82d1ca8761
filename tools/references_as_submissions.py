#!/usr/bin/env python3
"""Writes a KernelBench-X JSONL whose submissions are the suite's own references (a self-check).

usage: tools/references_as_submissions.py OUT.jsonl [--suite suites/kernelbenchx] [--tasks GLOB]

Evaluate it with `kbx eval OUT.jsonl -o runs/refs --no-require-triton`: every task must pass call
and exe, and its speedup must be near 1.0 (the reference timed against itself).
"""

import argparse
import fnmatch
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--suite", type=pathlib.Path, default=ROOT / "suites" / "kernelbenchx")
    ap.add_argument("--tasks", default="*", help="comma-separated globs over task keys")
    a = ap.parse_args()
    lines = []
    for task_json in sorted(a.suite.glob("*/*/task.json")):
        key = json.loads(task_json.read_text())["key"]
        if any(fnmatch.fnmatch(key, g.strip()) for g in a.tasks.split(",")):
            code = (task_json.parent / "reference.py").read_text()
            lines.append(json.dumps({"predict": code, "file": key}))
    a.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} submissions to {a.out}")


if __name__ == "__main__":
    main()
