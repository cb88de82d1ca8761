#!/usr/bin/env python3
"""Where does the reference process's offset sit: in the kernels or around them? (issue 7)

Session 40's H200 runs timed the references (as submissions) 3.6% slower in the reference worker
than in the candidate processes on workloads under 20 us, +0.29 us a sample, while the kernels'
own GPU time (kernel_busy_ms, CUPTI's records of the inventory calls) differed by 0.02 us: the
offset lies between the events and the kernels, not in the kernels.

Per run and by the reference's median: the median over workloads of reference / candidate - 1
for the events' median and for the kernels' busy time, the same as absolute differences (us),
and the median events-minus-busy time on each side. Reads `--reference-timing session` runs
(reference_timings) and `adjacent` runs (submission_reference_timings) alike.

With --lanes N (the run's reference workers per GPU), also the offset under 20 us per lane:
the worker that timed each task's reference (timing_lane_index, a hash of its key).

usage: tune/offset_split.py [--lanes N] RUN_DIR_OR_DB [...]
"""
import pathlib
import sqlite3
import statistics
import sys

BINS = ((0.02, "<20 us"), (0.05, "20-50 us"), (0.2, "50-200 us"), (float("inf"), ">200 us"))


def lane_of(key: str, lanes: int) -> int:
    """src/kbx/run/reference_service.cpp timing_lane_index: FNV-1a of the key, modulo lanes."""
    h = 14695981039346656037
    for c in key.encode():
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h % lanes if lanes > 1 else 0


def pairs(path: pathlib.Path) -> list[tuple[float, float, float, float, str]]:
    """(reference events ms, reference busy ms, candidate events ms, candidate busy ms, task)."""
    db = sqlite3.connect(path / "kbx.db" if path.is_dir() else path)
    cand = {}
    for key, w, e, b in db.execute(
            "SELECT s.task_key, c.workload_index, c.events_median_ms, c.kernel_busy_ms FROM "
            "candidate_timings c JOIN submissions s USING (submission_id) WHERE c.status = 'ok'"):
        cand[(key, w)] = (e, b)
    # The session's reference timings, replaced by a submission's own where it has them
    # (`adjacent` runs; host-share tasks in `session` runs): the first of a task's own.
    ref = {(key, w): (e, b) for key, w, e, b in db.execute(
        "SELECT task_key, workload_index, events_median_ms, kernel_busy_ms FROM reference_timings "
        "WHERE status = 'ok'")}
    own = db.execute("SELECT 1 FROM sqlite_master WHERE name = "
                     "'submission_reference_timings'").fetchone() is not None
    seen = set()
    for key, w, e, b in db.execute(
            "SELECT s.task_key, t.workload_index, t.events_median_ms, t.kernel_busy_ms FROM "
            "submission_reference_timings t JOIN submissions s USING (submission_id) "
            "WHERE t.status = 'ok' ORDER BY t.timing_id") if own else []:
        if (key, w) not in seen:
            seen.add((key, w))
            ref[(key, w)] = (e, b)
    out = []
    for k, (re, rb) in ref.items():
        if k in cand and None not in (re, rb, *cand[k]) and min(re, rb, *cand[k]) > 0:
            out.append((re, rb, *cand[k], k[0]))
    return out


def main() -> None:
    args = sys.argv[1:]
    lanes = 0
    if args[:1] == ["--lanes"] and len(args) > 1:
        lanes, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    med = statistics.median
    print(f"{'run':28} {'bin':10} {'n':>5} {'events':>8} {'busy':>8} {'d_ev us':>8} "
          f"{'d_busy us':>9} {'ev-busy ref/cand us':>20} {'ref>cand':>8}")
    for arg in args:
        rows = pairs(pathlib.Path(arg))
        low = 0.0
        for high, name in BINS:
            sel = [r for r in rows if low <= r[0] < high]
            low = high
            if not sel:
                continue
            ev = med(r[0] / r[2] - 1 for r in sel) * 100
            busy = med(r[1] / r[3] - 1 for r in sel) * 100
            d_ev = med(r[0] - r[2] for r in sel) * 1e3
            d_busy = med(r[1] - r[3] for r in sel) * 1e3
            gap_ref = med(r[0] - r[1] for r in sel) * 1e3
            gap_cand = med(r[2] - r[3] for r in sel) * 1e3
            above = sum(r[0] > r[2] for r in sel)
            print(f"{arg[-28:]:28} {name:10} {len(sel):5} {ev:+7.2f}% {busy:+7.2f}% {d_ev:+8.3f} "
                  f"{d_busy:+9.3f} {gap_ref:9.2f} / {gap_cand:<8.2f} {above:>4}/{len(sel)}")
        for lane in range(lanes):
            sel = [r for r in rows if r[0] < 0.02 and lane_of(r[4], lanes) == lane]
            if sel:
                print(f"  lane {lane}: under 20 us, {len(sel)} workloads of "
                      f"{len({r[4] for r in sel})} tasks: events "
                      f"{med(r[0] / r[2] - 1 for r in sel) * 100:+.2f}%, "
                      f"{med(r[0] - r[2] for r in sel) * 1e3:+.3f} us")


if __name__ == "__main__":
    main()
