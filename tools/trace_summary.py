#!/usr/bin/env python3
"""Where a run's wall time went, from `kbx eval --trace FILE`: the run's span, the GPU's exclusive
time (reference pass and candidates), each timing phase summed over every time request, and the
stages of the evaluating threads.

usage: tools/trace_summary.py TRACE.json
"""

import collections
import json
import sys


def main(path: str) -> None:
    events = json.load(open(path))["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        print("no spans")
        return
    begin = min(e["ts"] for e in spans)
    end = max(e["ts"] + e["dur"] for e in spans)
    wall = (end - begin) / 1e3
    print(f"run span: {wall / 1e3:.1f} s over {len(spans)} spans")

    def total(pred) -> tuple[float, int]:
        picked = [e for e in spans if pred(e)]
        return sum(e["dur"] for e in picked) / 1e3, len(picked)

    ref_ms, ref_n = total(lambda e: lanes.get(e["tid"], "").startswith("exclusive")
                          and e.get("cat") == "timing")
    cand_ms, cand_n = total(lambda e: lanes.get(e["tid"], "").startswith("exclusive")
                            and e.get("cat") == "exclusive")
    print(f"GPU exclusive: reference pass {ref_ms / 1e3:.1f} s ({ref_n} tasks), candidates "
          f"{cand_ms / 1e3:.1f} s ({cand_n} holds); together {100 * (ref_ms + cand_ms) / wall:.0f}% "
          f"of the run")
    phases: dict[str, float] = collections.defaultdict(float)
    for e in spans:
        if e.get("cat") == "phase":
            name = e["name"].split(" ")[0]
            phases[name] += e["dur"] / 1e3
    if phases:
        all_ms = sum(phases.values())
        print("timing phases (reference and candidate requests together):")
        for name, ms in sorted(phases.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<10} {ms / 1e3:8.1f} s  {100 * ms / all_ms:5.1f}%")
    requests = collections.defaultdict(lambda: [0.0, 0])
    for e in spans:
        if e.get("cat") == "timing":
            side = e["args"].get("side", "reference") if "side" in e.get("args", {}) \
                else e["name"]
            requests[side][0] += e["dur"] / 1e3
            requests[side][1] += 1
    for side, (ms, n) in sorted(requests.items()):
        print(f"time requests, {side}: {n}, {ms / 1e3:.1f} s, {ms / max(n, 1):.0f} ms each")
    stages = collections.defaultdict(lambda: [0.0, 0])
    for e in spans:
        if e.get("cat") in ("stage", "queue"):
            stages[e["name"]][0] += e["dur"] / 1e3
            stages[e["name"]][1] += 1
    print("thread stages (summed over threads):")
    for name, (ms, n) in sorted(stages.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:<18} {ms / 1e3:8.1f} s over {n:5d}, {ms / max(n, 1):7.1f} ms each")
    workloads = sorted((e for e in spans if e.get("cat") == "workload"), key=lambda e: -e["dur"])
    if workloads:
        print("longest workloads:")
        parents = {}
        for e in spans:
            if e.get("cat") in ("timing",):
                parents.setdefault(e["tid"], []).append(e)
        for w in workloads[:8]:
            owner = next((p for p in parents.get(w["tid"], [])
                          if p["ts"] <= w["ts"] <= p["ts"] + p["dur"]), None)
            label = owner["args"].get("task", owner["name"]) if owner else "?"
            print(f"  {w['dur'] / 1e3:8.1f} ms  {label} {w['name']} ({w['args'].get('samples')} samples)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
