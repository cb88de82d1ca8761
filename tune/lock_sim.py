#!/usr/bin/env python3
"""Where the candidate phase's wall time goes, replayed: takes each candidate's stages from a
`kbx eval --trace` file (reference outputs, load and cases, perf recheck under shared GPU holds;
timing under the exclusive hold; the recheck's comparison with none), and replays them on JOBS
threads with sandbox::GpuLock's rule (a waiting exclusive holder keeps new shared ones out and
waits for those running). Prints the replayed span for what-ifs: more threads, reference outputs
from the cache, a cheaper recheck. Session 31: on its H100 trace the replay gives 193 s against
the measured 217 s (it leaves out the comparisons between stages); cached reference outputs and
a recheck at 0.4x its cost give 160 s; 16 threads 149 s; timing alone is 119 s of it.
Session 32 (run 2's H100 trace, reference outputs from the cache): 140.7 s replayed against 177.7 s
measured; --no-ref-hold (cached outputs read without a GPU hold) below.
Session 33 (run 2's H200 trace, 196.5 s measured, 65 s of it in gaps behind bursts of worker
starts): --starters N models the pool's starts (each under a shared hold, its length by how many
run at once), --start-unheld starts that take no hold.
Session 36 (call A's run 2, an H100, 175.3 s measured): --starters 8 --start-s 2.0 170.4 s; with
--unheld-s 0.15,0.35 (starts hold only their CUDA context, 784a995) 162.4 s; unheld 133.0 s.
usage: tune/lock_sim.py TRACE.json [--jobs 8] [--ref-scale 1] [--recheck-scale 1] [--no-ref-hold]
       [--starters N [--start-s S] [--start-unheld | --unheld-s BEFORE,AFTER]]"""

from __future__ import annotations

import argparse
import collections
import json


def candidates(trace_path: str) -> list[dict]:
    events = json.load(open(trace_path))["traceEvents"]
    # The GPU's exclusive lane by its name (the first lane need not be it: the pool's worker
    # starts have lanes of their own since session 32).
    lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    gpu = {t for t, name in lanes.items() if name.startswith("exclusive")} or {1}
    exclusive = {e["name"]: e["dur"] / 1e6 for e in events
                 if e.get("ph") == "X" and e.get("tid") in gpu and e["name"].endswith(".py")
                 and e.get("args", {}).get("side") != "reference"}
    stages: dict[str, dict] = collections.defaultdict(lambda: collections.defaultdict(float))
    order: list[str] = []
    for e in sorted((e for e in events if e.get("ph") == "X" and e.get("tid") not in gpu
                     and e.get("cat") == "stage"), key=lambda e: e["ts"]):
        task = e["args"]["task"]
        if task not in stages:
            order.append(task)
        stages[task][e["name"]] += e["dur"] / 1e6
    return [{"R": stages[t]["reference outputs"], "C": stages[t]["load"] + stages[t]["cases"],
             "X": exclusive.get(t, 0.0), "K": stages[t]["perf recheck"],
             "Q": stages[t]["perf recheck compare"]} for t in order]


# Session 33 (an H200, 5-7 starts at once): a worker start's seconds by how many ran beside it
# (tune/trace_gaps.py); index = starts at once, the last value for more.
START_S = (1.15, 1.15, 1.43, 1.34, 1.57, 1.95, 2.04, 2.38, 2.42)


def replay(subs: list[dict], jobs: int, ref_scale: float = 1.0, recheck_scale: float = 1.0,
           ref_hold: bool = True, starters: int = 0, start_s: float | None = None,
           start_hold: bool = True, unheld_s: tuple[float, float] = (0.0, 0.0)) -> float:
    """The span of running `subs` in order on `jobs` threads under the GPU lock's rule; without
    `ref_hold` the reference outputs take no GPU hold (read from the cache). With `starters`,
    each submission first takes a ready worker from a pool that `starters` threads keep at `jobs`
    ready, each start lasting `start_s` (default START_S at `starters` at once) under a shared
    hold (without `start_hold`: none). `unheld_s` (before, after): the parts of each start outside
    its hold (since session 36 a start holds the lock only around its CUDA context; the fork,
    confinement and kernel inventory before it, Triton's driver glue after), the held part being
    what is left of `start_s`."""
    queue = list(subs)
    plans: list[list] = [[] for _ in range(jobs)]
    current: list = [None] * jobs
    running: dict[int, float] = {}
    shared: set[int] = set()
    exclusive = None
    now = 0.0
    start_dur = start_s if start_s is not None else START_S[min(starters, len(START_S) - 1)]
    ready = jobs if starters else 0  # the pool is full when the candidates begin
    starting: set[int] = set()  # starter ids (jobs + k) under way
    # a start's parts: (hold?, seconds); the held one waits for the lock like any shared hold
    start_parts = [(False, unheld_s[0]), (True, max(0.0, start_dur - sum(unheld_s))), (False, unheld_s[1])]
    start_part: dict[int, int] = {}  # starter id -> index of the part it is in (or waits for)
    needs_worker = [bool(starters)] * jobs

    def advance(i: int) -> None:
        if not plans[i]:
            if not queue:
                current[i] = None
                return
            s = queue.pop(0)
            plans[i] = [("S" if ref_hold else "C", s["R"] * ref_scale), ("S", s["C"]), ("E", s["X"]),
                        ("S", s["K"] * recheck_scale), ("C", s["Q"])]
            needs_worker[i] = bool(starters)
        current[i] = plans[i].pop(0)

    for i in range(jobs):
        advance(i)
    while True:
        admitted = True
        while admitted:
            admitted = False
            waiting_exclusive = any(c is not None and c[0] == "E" and i not in running
                                    for i, c in enumerate(current))
            for k in range(starters):  # a starter begins when the pool wants one more
                sid = jobs + k
                if sid in running:
                    continue
                if sid not in starting:
                    if ready + len(starting) >= jobs:
                        continue
                    starting.add(sid)
                    start_part[sid] = 0
                held, dur = start_parts[start_part[sid]]
                held = held and start_hold
                if not held or (exclusive is None and not waiting_exclusive):
                    running[sid] = now + dur
                    if held:
                        shared.add(sid)
                    admitted = True
            for i, c in enumerate(current):
                if c is None or i in running:
                    continue
                if needs_worker[i]:
                    if ready == 0:
                        continue
                    ready -= 1
                    needs_worker[i] = False
                    admitted = True
                kind, dur = c
                if kind == "C" or (kind == "S" and exclusive is None and not waiting_exclusive):
                    running[i] = now + dur
                    if kind == "S":
                        shared.add(i)
                    admitted = True
                elif kind == "E" and exclusive is None and not shared:
                    exclusive, running[i] = i, now + dur
                    admitted = True
                    break
        if not running:
            return now
        i = min(running, key=running.get)
        now = running.pop(i)
        shared.discard(i)
        if i in starting:
            start_part[i] += 1
            if start_part[i] == len(start_parts):
                starting.discard(i)
                ready += 1
            continue
        exclusive = None if exclusive == i else exclusive
        advance(i)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--ref-scale", type=float, default=1.0)
    ap.add_argument("--recheck-scale", type=float, default=1.0)
    ap.add_argument("--no-ref-hold", action="store_true",
                    help="reference outputs without a GPU hold (all read from the cache)")
    ap.add_argument("--starters", type=int, default=0,
                    help="model the pool's worker starts with this many starters (0: not modelled)")
    ap.add_argument("--start-s", type=float, default=None,
                    help="a start's seconds (default: session 33's by how many run at once)")
    ap.add_argument("--start-unheld", action="store_true",
                    help="worker starts without a GPU hold")
    ap.add_argument("--unheld-s", default="0,0",
                    help="BEFORE,AFTER: seconds of each start outside its hold (session 36's starts "
                         "hold only their CUDA context: about 0.15,0.35 on an H100)")
    a = ap.parse_args()
    subs = candidates(a.trace)
    total = {k: sum(s[k] for s in subs) for k in "RCXKQ"}
    print(f"{len(subs)} candidates; thread-summed: reference outputs {total['R']:.1f} s, load and "
          f"cases {total['C']:.1f} s, timing {total['X']:.1f} s, recheck {total['K']:.1f} s")
    span = replay(subs, a.jobs, a.ref_scale, a.recheck_scale, not a.no_ref_hold, a.starters,
                  a.start_s, not a.start_unheld,
                  tuple(float(x) for x in a.unheld_s.split(",")))
    starts = (f", {a.starters} starters{' without a hold' if a.start_unheld else ''}"
              f"{', unheld ' + a.unheld_s + ' s' if a.unheld_s != '0,0' else ''}"
              if a.starters else "")
    print(f"replayed span: {span:.1f} s ({a.jobs} threads, reference outputs x{a.ref_scale}"
          f"{' without a GPU hold' if a.no_ref_hold else ''}, recheck x{a.recheck_scale}{starts})")


if __name__ == "__main__":
    main()
