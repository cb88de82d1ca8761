#!/usr/bin/env python3
"""Runs the model-style kernels through kbx and fails on any verdict other than the expected one.

usage: check.py --kbx KBX [--python PY] [--device cpu|cuda] [--work DIR] [--rules kbx|kernelbenchx]
                [--dir FOLDER] [--only GLOB ...] [--suite DIR] [--jobs N] [--seed N]
                [--cache-dir DIR] [--all-cases] [--no-perf] [GLOB ...]

kbx runs with --fail-fast (a kernel's cases stop at the first that fails: the same ok or not ok,
and a wrong kernel's remaining cases, a quarter of the CPU run's time, are not run); --all-cases
runs every case of every kernel.

--dir runs another folder laid out the same way (<Category>/<stem>[__variant].py), such as
solutions/; GLOBs (or --only GLOB ...) relative to it pick a subset (e.g. 'Fusion/*' or
'Math/softmax*.py'); without any, all of them run. --suite, --jobs and --seed pass through to kbx.

Every kernel file names the verdict a careful judge gives it (`# expect: ok` or
`# expect: incorrect`); `# expect-cpu:` overrides it on the CPU, where Triton's interpreter cannot
show some bugs (TF32 in tl.dot), and `# expect-kernelbenchx:` under `--rules kernelbenchx`, for a
wrong kernel that only kbx's own cases catch (annotated where known); `# expect-kernelbenchx-cuda:`
(or -cpu) overrides both for that rule set on that device. kbx's verdict must be `ok`
exactly where `ok` is expected: a correct kernel failed is a contract that fails correct kernels by chance or by rounding, a wrong
one passed is a contract too loose. known_gaps/ holds wrong kernels kbx still passes (its README
says which check each lacks); the default run leaves it out (run it with --dir).
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def expected(code: str, device: str, rules: str) -> str:
    found = ((rules != "kbx" and re.search(rf"^#\s*expect-{rules}-{device}:\s*(\w+)", code, re.M))
             or (rules != "kbx" and re.search(rf"^#\s*expect-{rules}:\s*(\w+)", code, re.M))
             or re.search(rf"^#\s*expect-{device}:\s*(\w+)", code, re.M)
             or re.search(r"^#\s*expect:\s*(\w+)", code, re.M))
    if not found:
        raise SystemExit("a kernel has no '# expect:' line")
    return found.group(1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--rules", default="kbx")
    ap.add_argument("--work")
    ap.add_argument("--dir", default=str(HERE))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--suite", help="suite folder passed to kbx as --suite")
    ap.add_argument("--jobs", help="passed to kbx as --jobs")
    ap.add_argument("--seed", help="passed to kbx as --seed (base seed of the test inputs)")
    ap.add_argument("--cache-dir")
    ap.add_argument("--all-cases", action="store_true", help="run every case (no --fail-fast)")
    ap.add_argument("--no-perf", action="store_true",
                    help="passed to kbx (on a GPU: the verdicts without the timing)")
    ap.add_argument("globs", nargs="*", help="kernel files to run, relative to --dir (default: */*.py)")
    args = ap.parse_args()
    root = pathlib.Path(args.dir).resolve()
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="kbx-model-kernels-"))
    shutil.rmtree(work / "run", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    patterns = args.only + args.globs
    if patterns:
        files = sorted({f for g in patterns for f in root.glob(g)
                        if f.suffix == ".py" and f.parent.parent == root})
        if not files:
            raise SystemExit("no kernel file matches " + " ".join(patterns))
    else:
        files = sorted(f for f in root.glob("*/*.py") if f.parent.parent == root)
    entries = []
    with open(work / "kernels.jsonl", "w") as out:
        for f in files:
            code = f.read_text()
            stem = f.stem.split("__")[0]
            entries.append((f.relative_to(root).as_posix(), expected(code, args.device, args.rules)))
            out.write(json.dumps({"predict": code, "file": f"{f.parent.name}/{stem}.py"}) + "\n")
    cmd = [args.kbx, "eval", str(work / "kernels.jsonl"), "-o", str(work / "run"), "--device",
           args.device, "--python", args.python, "--cache-dir", args.cache_dir or str(work / "cache"),
           "--rules", args.rules]
    if not args.all_cases:
        cmd += ["--fail-fast"]
    if args.suite:
        cmd += ["--suite", args.suite]
    if args.jobs:
        cmd += ["--jobs", args.jobs]
    if args.seed:
        cmd += ["--seed", args.seed]
    if args.no_perf:
        cmd += ["--no-perf"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode not in (0, 1):
        print(proc.stdout[-3000:])
        print(f"kbx exited {proc.returncode}")
        return 1
    db = sqlite3.connect(work / "run" / "kbx.db")
    got = {}
    for origin, outcome, reason, detail in db.execute(
            "SELECT s.origin, e.outcome, e.reason, e.detail FROM submissions s "
            "JOIN evaluations e USING (submission_id)"):
        line = int(origin.rsplit(":", 1)[1])
        got[line] = (outcome, reason, detail)
    bad = 0
    for i, (name, want) in enumerate(entries, start=1):
        outcome, reason, detail = got.get(i, ("missing", "", ""))
        ok = (outcome == "ok") == (want == "ok") and outcome != "missing"
        bad += not ok
        print(f"{'  ' if ok else '! '}{name:<60} expect {want:<10} kbx {outcome}"
              f"{':' + reason if reason else ''}{'' if ok else '  ' + detail[:300]}")
    print(f"{len(entries) - bad} of {len(entries)} as expected ({args.rules} rules, {args.device})")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
