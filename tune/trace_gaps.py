#!/usr/bin/env python3
"""Where a `kbx eval --trace` run's GPU sat idle between timing holds, and what ran meanwhile.

The exclusive lane (spans of category "exclusive") is the run's bottleneck once references come
from the cache: every gap between two exclusive holds is time the GPU's timing lane waited. For
the gaps over --min-gap-s this sums, thread by thread, the time each other span overlapped them
(worker starts, waits for the GPU, cases, rechecks, ...), and tabulates the pool's worker starts
by how many others ran beside them (the driver serialises CUDA context creation, so a start
takes longer the more run at once). Session 33 (an H200): 65.1 s of a 196.5 s run in 29 gaps
over 1.5 s, worker starts 358 s thread-summed across them, 2.24 s a start. Since session 36 a start
holds the lock only around its CUDA context: the "start hold" spans, summed under the starts.

usage: tune/trace_gaps.py TRACE.json [--min-gap-s 1.0]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics


def spans(path: str) -> list[dict]:
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e for e in events if e.get("ph") == "X"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--min-gap-s", type=float, default=1.0)
    args = ap.parse_args()
    xs = spans(args.trace)
    if not xs:
        print("no spans")
        return 1
    first = min(x["ts"] for x in xs)
    last = max(x["ts"] + x["dur"] for x in xs)
    holds = sorted((x for x in xs if x.get("cat") == "exclusive"), key=lambda x: x["ts"])
    busy = sum(x["dur"] for x in holds)
    print(f"run span {(last - first) / 1e6:.1f} s; {len(holds)} exclusive holds, "
          f"{busy / 1e6:.1f} s")
    gaps = []
    for a, b in zip(holds, holds[1:]):
        begin, end = a["ts"] + a["dur"], b["ts"]
        if end > begin:
            gaps.append((begin, end))
    total = sum(e - b for b, e in gaps)
    big = [(b, e) for b, e in gaps if e - b > args.min_gap_s * 1e6]
    print(f"gaps between holds {total / 1e6:.1f} s; over {args.min_gap_s:g} s: {len(big)}, "
          f"{sum(e - b for b, e in big) / 1e6:.1f} s")
    overlap: collections.Counter = collections.Counter()
    for b, e in big:
        for x in xs:
            if x.get("cat") == "exclusive":
                continue
            o = min(e, x["ts"] + x["dur"]) - max(b, x["ts"])
            if o > 0:
                name = "workload phases" if x.get("cat") in ("workload", "phase") else x["name"]
                overlap[name] += o
    print("overlapping those gaps, thread-summed:")
    for name, us in overlap.most_common(12):
        print(f"  {name:24s} {us / 1e6:8.1f} s")
    starts = sorted((x for x in xs if x["name"] == "worker start"), key=lambda x: x["ts"])
    if starts:
        durs = [x["dur"] / 1e3 for x in starts]
        print(f"worker starts: {len(starts)}, {sum(durs) / 1e3:.1f} s, median "
              f"{statistics.median(durs):.0f} ms")
        by: dict[int, list[float]] = collections.defaultdict(list)
        for s in starts:
            b, e = s["ts"], s["ts"] + s["dur"]
            beside = sum(1 for o in starts if o is not s and o["ts"] < e and o["ts"] + o["dur"] > b)
            by[beside].append(s["dur"] / 1e3)
        print("  beside  starts  median ms  (min-max)")
        for k in sorted(by):
            v = by[k]
            print(f"  {k:6d}  {len(v):6d}  {statistics.median(v):9.0f}  ({min(v):.0f}-{max(v):.0f})")
        phases: dict[str, list[float]] = collections.defaultdict(list)
        for s in starts:  # the worker's own account of its start, where it sent one
            for name, ms in (s.get("args", {}).get("phases_ms") or {}).items():
                phases[name].append(ms)
        if phases:
            print("  start phases (worker's account), median ms: " + ", ".join(
                f"{n} {statistics.median(v):.0f}" for n, v in phases.items()))
        held = [s["args"]["held_ms"] for s in starts if "held_ms" in s.get("args", {})]
        if held:  # since session 36 a start holds the GPU lock only around its CUDA context
            waits = [s["args"]["hold_wait_ms"] for s in starts if "hold_wait_ms" in s["args"]]
            print(f"  under their shared hold: {sum(held) / 1e3:.1f} s, median {statistics.median(held):.0f} ms "
                  f"a start; waits for the hold {sum(waits) / 1e3:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
