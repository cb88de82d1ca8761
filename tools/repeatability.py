#!/usr/bin/env python3
"""Repeatability of kbx's speedups across runs of the same submissions (issue 7's figures).

usage: tools/repeatability.py RUN_DIR_OR_DB [RUN_DIR_OR_DB ...]

Per run: the self-check when the submissions are the references (|speedup - 1| per task: median,
95th percentile, tasks within 0.95x-1.05x) and per workload. Between each pair of runs: per task
|delta speedup| / speedup (median, 95th percentile, share under 3%) and per workload the
candidate's median time (median relative difference). Prints each run's tasks outside 0.95x-1.05x
(and how many are outside 0.9x-1.1x), the self-check's sign (a bias between the reference's
process and the candidates' shows as speedups on one side of 1), and the tasks that moved most
between runs.
"""

import itertools
import pathlib
import sqlite3
import statistics
import sys


def load(path: pathlib.Path) -> dict:
    db = sqlite3.connect(path / "kbx.db" if path.is_dir() else path)
    out = {}
    own_references = db.execute("SELECT 1 FROM sqlite_master WHERE name = "
                                "'submission_reference_timings'").fetchone() is not None
    for key, sid, rs in db.execute(
            "SELECT s.task_key, e.submission_id, e.reference_session_id FROM evaluations e "
            "JOIN submissions s USING (submission_id) WHERE e.perf_ok = 1"):
        cand, ref = {}, {}
        for w, t in db.execute(
                "SELECT t.workload_index, s.time_ms FROM candidate_timings t JOIN candidate_samples s "
                "USING (timing_id) WHERE t.submission_id = ? AND t.status = 'ok'", (sid,)):
            cand.setdefault(w, []).append(t)
        if own_references:  # --reference-timing adjacent: the submission's own reference
            for w, t in db.execute(
                    "SELECT t.workload_index, s.time_ms FROM submission_reference_timings t JOIN "
                    "submission_reference_samples s USING (timing_id) WHERE t.submission_id = ? "
                    "AND t.session_id = ? AND t.status = 'ok'", (sid, rs)):
                ref.setdefault(w, []).append(t)
        if not ref:
            for w, t in db.execute(
                    "SELECT t.workload_index, s.time_ms FROM reference_timings t JOIN "
                    "reference_samples s USING (timing_id) WHERE t.session_id = ? AND "
                    "t.task_key = ? AND t.status = 'ok'", (rs, key)):
                ref.setdefault(w, []).append(t)
        cm = {w: statistics.median(v) for w, v in cand.items()}
        rm = {w: statistics.median(v) for w, v in ref.items() if w in cm}
        if not rm:
            continue
        out[key] = {"speedup": sum(rm.values()) / sum(cm[w] for w in rm),
                    "cand": cm, "ref": rm}
    return out


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    runs = [(p, load(pathlib.Path(p))) for p in sys.argv[1:]]
    print(f"{'run':<28} {'tasks':>5} {'self med%':>9} {'self p95%':>9} {'in 0.95-1.05':>12} "
          f"{'wl med%':>8} {'wl p95%':>8}")
    for name, r in runs:
        d = [abs(v["speedup"] - 1) for v in r.values()]
        wl = [abs(v["ref"][w] / v["cand"][w] - 1) for v in r.values() for w in v["ref"]]
        print(f"{name[-28:]:<28} {len(d):>5} {100 * statistics.median(d):>9.2f} {100 * pct(d, .95):>9.1f} "
              f"{sum(x <= 0.05 for x in d):>8}/{len(d):<3} {100 * statistics.median(wl):>8.2f} "
              f"{100 * pct(wl, .95):>8.1f}")
    # The self-check's sign: noise scatters speedups on both sides of 1, a difference between the
    # reference's process and the candidates' moves them to one side (session 40's H200: workloads
    # under 20 us read 3.6% faster in the candidates in 85% of cases). By call length (the
    # reference's median).
    for name, r in runs:
        signed = [v["speedup"] - 1 for v in r.values()]
        by_len: dict = {}
        for v in r.values():
            for w, ref_ms in v["ref"].items():
                edge = next(e for e in (0.02, 0.05, 0.2, 1.0, 10.0, float("inf")) if ref_ms < e)
                by_len.setdefault(edge, []).append(ref_ms / v["cand"][w] - 1)
        parts = " ".join(f"<{e:g}ms {100 * statistics.median(x):+.2f}% ({sum(y > 0 for y in x)}/"
                         f"{len(x)})" for e, x in sorted(by_len.items()))
        print(f"{name[-28:]}: signed self-check, task median {100 * statistics.median(signed):+.2f}% "
              f"({sum(x > 0 for x in signed)}/{len(signed)} above 1); per workload above 1 by "
              f"length: {parts}")
    for name, r in runs:  # the tasks outside 0.95x-1.05x, and issue 5's bar, 0.9x-1.1x
        out = sorted(((v["speedup"], k) for k, v in r.items() if abs(v["speedup"] - 1) > 0.05),
                     key=lambda x: abs(x[0] - 1), reverse=True)
        wide = sum(abs(x - 1) > 0.1 for x, _ in out)
        print(f"\n{name[-28:]}: {len(out)} tasks outside 0.95x-1.05x, {wide} outside 0.9x-1.1x" +
              "".join(f"\n  {k:<52} {x:.3f}x" for x, k in out))
    for (na, a), (nb, b) in itertools.combinations(runs, 2):
        keys = sorted(set(a) & set(b))
        d = [(abs(a[k]["speedup"] - b[k]["speedup"]) / a[k]["speedup"], k) for k in keys]
        wl = [abs(a[k]["cand"][w] - b[k]["cand"][w]) / a[k]["cand"][w]
              for k in keys for w in a[k]["cand"] if w in b[k]["cand"]]
        dv = [x for x, _ in d]
        print(f"\n{na[-20:]} vs {nb[-20:]}: {len(keys)} tasks; |dspeedup|/speedup median "
              f"{100 * statistics.median(dv):.2f}%, p95 {100 * pct(dv, .95):.1f}%, under 3%: "
              f"{sum(x < 0.03 for x in dv)}/{len(dv)}; candidate median per workload: median "
              f"{100 * statistics.median(wl):.2f}%, p95 {100 * pct(wl, .95):.1f}%")
        for x, k in sorted(d)[-5:]:
            print(f"  {k:<48} {a[k]['speedup']:.3f} -> {b[k]['speedup']:.3f}  ({100 * x:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
