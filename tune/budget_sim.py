#!/usr/bin/env python3
"""What a smaller sampling budget would have given: replays the adaptive sampler on stored samples.

usage: tune/budget_sim.py RUN1.db RUN2.db OUT_DIR BUDGET_MS [TARGET (0.01)] [ONLY_UNDER_MS]

For every timing in two runs' stores (candidate, reference, submission reference), replays
timing.sample's stopping rule (the planned first round, then rounds while the median's 95%
interval is wider than TARGET, within BUDGET_MS of sampling) over the samples as they were taken,
and keeps the prefix it would have stopped at: a budget cut is exactly a prefix. With
ONLY_UNDER_MS, only workloads whose median is under that many ms get BUDGET_MS (the rest keep
40 ms, the benchmark's). Writes OUT_DIR/<run>.db (copies with the samples cut) and prints the
candidates' samples cut and the sampling time saved (each sample's time plus OVERHEAD_MS, the
loop's cost on session 40's H200); run tools/repeatability.py on the copies for the figures.
Session 40 (H200 runs 1-2): a 12 ms budget for workloads under 20 us saves about 9 s of a 136 s
run; per-workload run-to-run 1.04% -> 1.06%, the self-check median 0.57% -> 0.64%.
"""
import math
import pathlib
import shutil
import sqlite3
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from kbx_worker.timing import (BATCH, CI_OUT_OF_REACH, Settings, median_ci_rel,  # noqa: E402
                               plan_samples)

OVERHEAD_MS = 0.035
BENCHMARK_BUDGET_MS = 40.0


def stop_at(xs: list[float], budget: float, target: float, only_under: float) -> int:
    """How many of the samples `xs` (in the order taken) the sampler would have taken."""
    med = sorted(xs)[len(xs) // 2]
    if med >= only_under:
        budget = BENCHMARK_BUDGET_MS
    per = med + OVERHEAD_MS
    n = min(plan_samples(Settings(), med), len(xs))  # the first round, as the worker plans it
    while True:
        rel, spent = median_ci_rel(xs[:n]), n * per
        if rel <= target or spent >= budget or n >= len(xs):
            return n
        wanted = math.ceil(n * (rel / target) ** 2 * 1.1) - n if math.isfinite(rel) else n
        affordable = int((budget - spent) / per) + 1
        if math.isfinite(rel) and wanted > CI_OUT_OF_REACH * affordable:
            return n
        n = min(len(xs), n + max(1, min(max(wanted, BATCH), affordable)))


def cut(src: pathlib.Path, dst: pathlib.Path, budget: float, target: float,
        only_under: float) -> tuple[int, float]:
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    removed, saved_ms = 0, 0.0
    for table in ("candidate_samples", "reference_samples", "submission_reference_samples"):
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is None:
            continue
        for (tid,) in db.execute(f"SELECT DISTINCT timing_id FROM {table}").fetchall():
            rows = db.execute(f"SELECT sample_index, time_ms FROM {table} WHERE timing_id = ? "
                              "ORDER BY sample_index", (tid,)).fetchall()
            xs = [r[1] for r in rows]
            if len(xs) < 10:
                continue
            n = stop_at(xs, budget, target, only_under)
            if n < len(xs):
                if table == "candidate_samples":
                    removed += len(xs) - n
                    saved_ms += sum(x + OVERHEAD_MS for x in xs[n:])
                db.execute(f"DELETE FROM {table} WHERE timing_id = ? AND sample_index >= ?",
                           (tid, rows[n][0]))
    db.commit()
    return removed, saved_ms / 1e3


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    out = pathlib.Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    budget = float(sys.argv[4])
    target = float(sys.argv[5]) if len(sys.argv) > 5 else 0.01
    only_under = float(sys.argv[6]) if len(sys.argv) > 6 else math.inf
    for i, src in enumerate(sys.argv[1:3], 1):
        removed, saved = cut(pathlib.Path(src), out / f"run{i}.db", budget, target, only_under)
        print(f"{src}: {removed} candidate samples cut, {saved:.1f} s of sampling saved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
