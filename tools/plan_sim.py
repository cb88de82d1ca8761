#!/usr/bin/env python3
"""Plans a large evaluation past one machine (issue 11): simulates the wall time and GPU use of
SUBMISSIONS = tasks x methods x rounds on 1 to 128 GPUs, one shard per GPU, from per-evaluation
times measured on a GPU (a kbx.db of a `kbx eval --device cuda` run).

usage: tools/plan_sim.py KBX_DB [--tasks 176] [--methods 5] [--rounds 3] [--pass-rate 0.5]
                         [--jobs 8] [--gpus 1,2,4,...,128] [--merge-ms-per-eval 12] [--seed 1]

The model, per shard (one GPU, `--jobs` workers on its host's cores):
- start: the zygote's Python start (5 s on the H200) once per shard;
- references: each task's reference is timed once, on the shard that holds the task (kbx's split
  keeps a task's submissions together), before any candidate: the mean measured perf time each;
- candidates: a CPU stage (load, Triton compile, the cases, the comparison) that runs on `--jobs`
  workers in parallel, and for correct ones (--pass-rate) a GPU stage (timing, exclusive); the
  CPU stages of later candidates overlap the GPU stage of earlier ones, so a shard takes
  max(sum of GPU stages, sum of CPU stages / jobs) plus the start and the references;
- merge: `kbx merge` of every shard's store, linear in evaluations (--merge-ms-per-eval, measured:
  118 evaluations with 209k samples in 1.4 s on 2 CPU cores).
Per-submission stage times are drawn (with replacement, seeded) from the measured evaluations;
submissions are split over shards by the same rule as `kbx eval --shard` (longest expected cost
first onto the least loaded shard, a task's submissions together).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys

ZYGOTE_START_S = 5.0


def measured(db_path: str) -> list[tuple[float, float]]:
    """(cpu seconds, gpu seconds) per measured evaluation; gpu is 0 where perf did not run."""
    rows = sqlite3.connect(db_path).execute(
        "SELECT time_load_ms, time_cases_ms, time_compare_ms, time_perf_ms FROM evaluations"
    ).fetchall()
    out = [((load + cases + compare) / 1e3, perf / 1e3) for load, cases, compare, perf in rows]
    if not out:
        sys.exit(f"{db_path}: no evaluations to draw times from")
    return out


def simulate(times, args, gpus: int, rng: random.Random) -> dict:
    timed = [g for _, g in times if g > 0]
    reference_s = sum(timed) / len(timed) if timed else 0.0
    per_task = args.methods * args.rounds
    tasks = []
    for t in range(args.tasks):
        subs = []
        for _ in range(per_task):
            cpu, gpu = rng.choice(times)
            subs.append((cpu, gpu if rng.random() < args.pass_rate else 0.0))
        cost = reference_s + sum(g + c / args.jobs for c, g in subs)
        tasks.append((cost, t, subs))
    shards = [[0.0, 0.0, 0.0, 0] for _ in range(gpus)]  # expected cost, cpu, gpu, tasks
    for cost, _, subs in sorted(tasks, key=lambda x: (-x[0], x[1])):
        s = min(range(gpus), key=lambda i: (shards[i][0], i))
        shards[s][0] += cost
        shards[s][1] += sum(c for c, _ in subs)
        shards[s][2] += sum(g for _, g in subs)
        shards[s][3] += 1
    walls, busy = [], 0.0
    bound = {"gpu": 0, "compile": 0}
    for _, cpu, gpu, n in shards:
        refs = n * reference_s
        wall = ZYGOTE_START_S + refs + max(gpu, cpu / args.jobs)
        bound["gpu" if gpu >= cpu / args.jobs else "compile"] += 1
        walls.append(wall)
        busy += gpu + refs
    merge_s = args.merge_ms_per_eval * args.tasks * per_task / 1e3 if gpus > 1 else 0.0
    wall = max(walls) + merge_s
    return {"gpus": gpus, "wall_s": wall, "shard_max_s": max(walls), "shard_min_s": min(walls),
            "merge_s": merge_s, "gpu_util": busy / (gpus * wall), "bound": bound}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--tasks", type=int, default=176)
    ap.add_argument("--methods", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pass-rate", type=float, default=0.5, help="share of candidates timed")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--gpus", default="1,2,4,8,16,32,64,128")
    ap.add_argument("--merge-ms-per-eval", type=float, default=12.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    times = measured(a.db)
    n = a.tasks * a.methods * a.rounds
    print(f"{n} submissions ({a.tasks} tasks x {a.methods} methods x {a.rounds} rounds), "
          f"{a.pass_rate:.0%} timed, {a.jobs} jobs per GPU; stage times from {len(times)} "
          f"evaluations in {a.db}")
    print(f"{'GPUs':>5} {'wall':>9} {'slowest shard':>14} {'fastest':>8} {'merge':>7} "
          f"{'GPU busy':>9}  shards bound by")
    for g in [int(x) for x in a.gpus.split(",")]:
        r = simulate(times, a, g, random.Random(a.seed))
        b = r["bound"]
        print(f"{g:>5} {r['wall_s'] / 60:>8.1f}m {r['shard_max_s'] / 60:>13.1f}m "
              f"{r['shard_min_s'] / 60:>7.1f}m {r['merge_s']:>6.0f}s {r['gpu_util']:>8.0%}  "
              f"gpu {b['gpu']}, compile {b['compile']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
