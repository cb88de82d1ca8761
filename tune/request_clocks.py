#!/usr/bin/env python3
"""Are a request's tiny-workload offsets its GPU clock? (issue 7's per-workload figure)

Session 32 found a candidate's workloads under 0.02 ms sit 3.5% (median over tasks) off the
reference's, all of a request's the same way, while each median's own 95% interval is under 1%.
Since c50b871 each time request writes one line to its worker's log:
    time request: SRC: N workloads, GPU clock MHz [...], median ms [...][; CPUs]
(SRC the entry's file: the task key for a candidate, .../<Category>/<name>/reference.py for the
reference). This pairs each candidate request with the reference request of its task and prints,
per task, the mean log ratio (candidate/reference) of the tiny workloads' medians and of the GPU
clocks at them, then how much of the first the second explains (across tasks: correlation, and
the offsets left after dividing out the clock ratio).

A candidate worker's log is deleted with its evaluation (session 33 found only references' lines),
so since session 33 the same figures also come from `kbx eval --trace` files: each workload's
span carries `median_ms` and `gpu_mhz`, inside its request's span ("candidate timing" with the
task in its args; a reference pass's span is named after the task, `side: reference`).

usage: tune/request_clocks.py FILE... [--tiny-ms 0.02]
       FILE: a trace (*.json; run 1's holds the references' requests when run 2 read them from
       the cache) or worker-log lines (grep -h "time request:" RUN/work/logs/* > LINES.txt)
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import pathlib
import re
import statistics

LINE = re.compile(r"time request: (?P<src>.*?): (?P<n>\d+) workloads, GPU clock MHz (?P<mhz>\[.*?\]), "
                  r"median ms (?P<med>\[.*?\])")


def task_of(src: str) -> tuple[str, str]:
    """(task key, side) from a request's source file."""
    p = pathlib.PurePosixPath(src)
    if p.name == "reference.py" and len(p.parts) >= 3:
        return f"{p.parts[-3]}/{p.parts[-2]}.py", "reference"
    return src, "candidate"


def parse_trace(path: str, out: dict) -> None:
    """Adds each time request of a `kbx eval --trace` file: its workloads' clocks and medians."""
    with open(path) as f:
        data = json.load(f)
    events = [e for e in (data["traceEvents"] if isinstance(data, dict) else data)
              if e.get("ph") == "X"]
    workloads: dict = {}
    for e in events:
        if e.get("cat") == "workload":
            workloads.setdefault(e["tid"], []).append(e)
    for e in events:
        args = e.get("args", {})
        if e["name"] == "candidate timing" and "task" in args:
            key, side = args["task"], "candidate"
        elif args.get("side") == "reference" and e["name"].endswith(".py"):
            key, side = e["name"], "reference"
        else:
            continue
        end = e["ts"] + e["dur"]
        inside = sorted((w for w in workloads.get(e["tid"], []) if e["ts"] <= w["ts"] <= end),
                        key=lambda w: int(w["name"].split()[-1]))
        mhz = [w["args"].get("gpu_mhz") for w in inside]
        med = [w["args"].get("median_ms") for w in inside]
        if inside:
            out.setdefault(key, {}).setdefault(side, []).append((mhz, med))


def parse(paths: list[str]) -> dict[str, dict[str, list[tuple[list, list]]]]:
    out: dict[str, dict[str, list]] = {}
    for path in paths:
        if path.endswith(".json"):
            parse_trace(path, out)
            continue
        for line in open(path, errors="replace"):
            m = LINE.search(line)
            if not m:
                continue
            key, side = task_of(m["src"])
            mhz = ast.literal_eval(m["mhz"])
            med = ast.literal_eval(m["med"])
            out.setdefault(key, {}).setdefault(side, []).append((mhz, med))
    return out


def pearson(xs: list[float], ys: list[float]) -> float:
    if len(xs) < 3:
        return math.nan
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (sx * sy) if sx and sy else math.nan


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lines", nargs="+")
    ap.add_argument("--tiny-ms", type=float, default=0.02)
    a = ap.parse_args()
    rows = []
    for key, sides in sorted(parse(a.lines).items()):
        if "candidate" not in sides or "reference" not in sides:
            continue
        ref_mhz, ref_med = sides["reference"][0]
        for cand_mhz, cand_med in sides["candidate"]:
            pairs = [(math.log(cm / rm), math.log(cc / rc))
                     for cm, rm, cc, rc in zip(cand_med, ref_med, cand_mhz, ref_mhz)
                     if cm and rm and cc and rc and rm < a.tiny_ms]
            if pairs:
                rows.append((key, statistics.mean(p[0] for p in pairs),
                             statistics.mean(p[1] for p in pairs), len(pairs)))
    if not rows:
        print("no task has both a candidate and a reference request with tiny workloads")
        return
    print(f"{'task':<50} {'tiny':>5} {'median offset':>14} {'clock offset':>13}")
    for key, off, clk, n in sorted(rows, key=lambda r: -abs(r[1]))[:25]:
        print(f"{key:<50} {n:>5} {100 * off:>13.2f}% {100 * clk:>12.2f}%")
    offs = [r[1] for r in rows]
    clks = [r[2] for r in rows]
    # A kernel bound by its clock takes time in inverse proportion to it: offset + clock ~ 0.
    left = [o + c for o, c in zip(offs, clks)]
    print(f"\n{len(rows)} candidate requests: |offset| median {100 * statistics.median(map(abs, offs)):.2f}%, "
          f"|clock offset| median {100 * statistics.median(map(abs, clks)):.2f}%, "
          f"correlation {pearson(offs, clks):.2f} (-1: the clock explains it), "
          f"|offset| left after the clock median {100 * statistics.median(map(abs, left)):.2f}%")


if __name__ == "__main__":
    main()
