"""Session 33's question: does another process creating its CUDA context disturb a timing run?

kbx's worker starts hold the GPU lock shared for the whole start (fork, confinement, CUDA context,
CUPTI, the flush buffer's zeroing, Triton's driver), so a timing run waits behind every start under
way: on an H200 (session 33) the suite's run with cached references spent 65 s of 196.5 s in 29
gaps over 1.5 s between timing holds, each the tail of a burst of five to seven starts (2.0-2.4 s
each; the driver serialises context creation). If creating a context without running kernels
leaves a timed process's samples alone, a start could take its hold only for the flush buffer's
zeroing, and the gaps would shrink to milliseconds.

One process times three calls the way kbx does (L2 flushed, CUDA events around each call; a
GPU-bound elementwise kernel of about 20 us, a 4096^2 matmul, and masked_select, which blocks the
host) in rounds, alternately alone ("idle") and with BACKGROUND threads creating contexts over and
over ("starting") (each a fresh `python -c` that imports torch, makes its
context, allocates 64 MB, exits; no kernels). Prints per call and condition the median of the
rounds' medians and the rounds' spread (max/min of the medians).
usage: python3 tune/context_interference.py [BACKGROUND (6)] [ROUNDS (12)]"""

import statistics
import subprocess
import sys
import threading
import time

import torch

CREATE = ("import torch; torch.cuda.init(); torch.cuda.set_device(0); "
          "b = torch.empty(64 << 20, dtype=torch.uint8, device='cuda')")


def timed(fn, flush, n: int) -> float:
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(n):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def churn(stop: threading.Event, starts: list) -> None:
    """Creates contexts in a fresh process, over and over, until stopped."""
    while not stop.is_set():
        begin = time.perf_counter()
        subprocess.run([sys.executable, "-c", CREATE], check=False)
        starts.append(time.perf_counter() - begin)


def main() -> None:
    background = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    torch.cuda.init()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    x = torch.randn(1 << 22, device="cuda")
    mask = x > 0
    a = torch.randn(4096, 4096, device="cuda")
    calls = {"elementwise": (lambda: x.mul(2.0), 200),
             "matmul 4096": (lambda: a @ a, 40),
             "masked_select": (lambda: torch.masked_select(x, mask), 200)}
    results: dict = {(name, cond): [] for name in calls for cond in ("idle", "starting")}
    starts: list[float] = []
    for r in range(rounds):
        for cond in ("idle", "starting") if r % 2 == 0 else ("starting", "idle"):
            stop = threading.Event()
            threads = [threading.Thread(target=churn, args=(stop, starts))
                       for _ in range(background if cond == "starting" else 0)]
            for t in threads:
                t.start()
            if threads:
                time.sleep(1.0)  # the first starts under way
            for name, (fn, n) in calls.items():
                results[(name, cond)].append(timed(fn, flush, n))
            stop.set()
            for t in threads:
                t.join()
    print(f"{background} background processes creating contexts; {len(starts)} starts, median "
          f"{statistics.median(starts) if starts else float('nan'):.2f} s each")
    print(f"{'call':16s} {'condition':9s} {'median ms':>10s} {'rounds max/min':>15s}")
    for (name, cond), meds in results.items():
        print(f"{name:16s} {cond:9s} {statistics.median(meds):10.4f} {max(meds) / min(meds):15.3f}")


if __name__ == "__main__":
    main()
