#!/usr/bin/env python3
"""Where a run's time requests spend their time, per workload (issue 7's wall time).

usage: tune/timing_profile.py TRACE.json [KBX_DB]

From `kbx eval --trace`: every time request ("reference timing", "candidate timing") with its
workloads' phases (inputs, warmup, samples, brackets, inventory). With the run's kbx.db also each
workload's sample count and the relative half-width of its median's 95% interval (the adaptive
sampler's target is 1%), so the workloads whose sampling ran to its budget show. Prints totals by
phase and by request kind, the costliest workloads, and the sampling time of workloads that did not
reach the target.
"""
import collections
import json
import pathlib
import sqlite3
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from kbx_worker.timing import median_ci_rel  # noqa: E402 - the sampler's own stopping figure


def main():
    events = json.load(open(sys.argv[1]))["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    requests = [e for e in spans if e["name"] in ("reference timing", "candidate timing")]
    by_tid = collections.defaultdict(list)
    for e in spans:
        by_tid[e["tid"]].append(e)
    rows = []  # (kind, task, workload, phase dict, samples)
    phase_tot = collections.Counter()
    kind_tot = collections.Counter()
    kind_n = collections.Counter()
    for r in requests:
        kind = r["name"].split()[0]
        task = r["args"].get("task", "?")
        kind_tot[kind] += r["dur"] / 1e3
        kind_n[kind] += 1
        t0, t1 = r["ts"], r["ts"] + r["dur"]
        inner = [e for e in by_tid[r["tid"]] if e is not r and t0 <= e["ts"] and e["ts"] + e["dur"] <= t1 + 1]
        cur = None
        for e in sorted(inner, key=lambda e: (e["ts"], -e["dur"])):
            if e["name"].startswith("workload "):
                cur = {"kind": kind, "task": task, "w": int(e["name"].split()[1]),
                       "n": e["args"].get("samples"), "ph": collections.Counter()}
                rows.append(cur)
            elif e["name"].startswith("inventory "):
                w = int(e["name"].split()[1])
                for row in rows[::-1]:
                    if row["task"] == task and row["kind"] == kind and row["w"] == w:
                        row["ph"]["inventory"] += e["dur"] / 1e3
                        break
                phase_tot[(kind, "inventory")] += e["dur"] / 1e3
            elif e.get("cat") == "phase" and cur is not None:
                cur["ph"][e["name"]] += e["dur"] / 1e3
                phase_tot[(kind, e["name"])] += e["dur"] / 1e3
    print(f"{len(requests)} time requests")
    for kind in kind_tot:
        print(f"  {kind}: {kind_n[kind]} requests, {kind_tot[kind] / 1e3:.1f} s, "
              f"{kind_tot[kind] / max(1, kind_n[kind]):.0f} ms each")
        ph = {p: v for (k, p), v in phase_tot.items() if k == kind}
        tot = sum(ph.values()) or 1
        print("    " + ", ".join(f"{p} {v / 1e3:.1f} s ({100 * v / tot:.0f}%)"
                                 for p, v in sorted(ph.items(), key=lambda x: -x[1])))
    rel = {}
    if len(sys.argv) > 2:
        db = sqlite3.connect(sys.argv[2])
        for key, w, ts in db.execute(
                "SELECT s.task_key, t.workload_index, group_concat(x.time_ms) FROM candidate_timings t "
                "JOIN submissions s USING (submission_id) JOIN candidate_samples x USING (timing_id) "
                "GROUP BY t.timing_id"):
            xs = [float(v) for v in ts.split(",")]
            rel[("candidate", key, w)] = (median_ci_rel(xs), sorted(xs)[len(xs) // 2], len(xs))
        for key, w, ts in db.execute(
                "SELECT t.task_key, t.workload_index, group_concat(x.time_ms) FROM reference_timings t "
                "JOIN reference_samples x USING (timing_id) GROUP BY t.timing_id"):
            xs = [float(v) for v in ts.split(",")]
            rel[("reference", key, w)] = (median_ci_rel(xs), sorted(xs)[len(xs) // 2], len(xs))
    for kind in kind_tot:
        rs = [r for r in rows if r["kind"] == kind]
        if rel:
            missed = [r for r in rs if rel.get((kind, r["task"], r["w"]), (0,))[0] > 0.0101]
            print(f"  {kind}: {len(missed)} of {len(rs)} workloads missed the 1% interval; their "
                  f"sampling {sum(r['ph']['samples'] for r in missed) / 1e3:.1f} s of "
                  f"{sum(r['ph']['samples'] for r in rs) / 1e3:.1f} s")
            bins = collections.Counter()
            for r in rs:
                med = rel.get((kind, r["task"], r["w"]), (0, 0, 0))[1]
                b = "<0.05ms" if med < 0.05 else "<1ms" if med < 1 else "<10ms" if med < 10 else ">=10ms"
                bins[b] += sum(r["ph"].values())
            print("    time by call length: " + ", ".join(f"{b} {v / 1e3:.1f} s" for b, v in bins.items()))
        costly = sorted(rs, key=lambda r: -sum(r["ph"].values()))[:12]
        for r in costly:
            extra = rel.get((kind, r["task"], r["w"]))
            print(f"    {r['task']:<48} w{r['w']:<3} {sum(r['ph'].values()):7.0f} ms  n={r['n']}"
                  + (f" med={extra[1]:.4g} ms ci={100 * extra[0]:.2f}%" if extra else "")
                  + "  " + ", ".join(f"{p} {v:.0f}" for p, v in r["ph"].items()))


if __name__ == "__main__":
    main()
