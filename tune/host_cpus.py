"""Session 31's open question for the next GPU call: does a process's host speed on calls that
block the host (masked_select sizing its output, a solve checking its info) depend on the CPU it
runs on? On an H200 the same reference code ran 1.2-1.5x slower in some processes than in others,
steadily for the whole process (docs/perf.md session 31). This pins itself to each CPU in turn
(twice, up then down the list) and prints each call's median wall time there, with a launch-only
call as a control. Two levels that follow the CPU, not the pass: pin timed processes.
usage: python3 tune/host_cpus.py [CALLS (300)]"""

import os
import statistics
import sys
import time

import torch

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 300
x = torch.randn(1 << 16, device="cuda")
mask = x > 0
a = torch.randn(256, 256, device="cuda")
a = a @ a.T + 256 * torch.eye(256, device="cuda")
b = torch.randn(256, 8, device="cuda")
work = {
    "masked_select": lambda: torch.masked_select(x, mask),
    "solve": lambda: torch.linalg.solve(a, b),
    "nonzero": lambda: torch.nonzero(mask),
    "launch_only": lambda: x.mul(2.0),
}


def median_us(fn) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


cpus = sorted(os.sched_getaffinity(0))
print("cpu pass " + " ".join(f"{name:>13}" for name in work))
for order, label in ((cpus, "up"), (list(reversed(cpus)), "down")):
    for cpu in order:
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.02)
        print(f"{cpu:3d} {label:>4} " + " ".join(f"{median_us(fn):13.1f}" for fn in work.values()),
              flush=True)
