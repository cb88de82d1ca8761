#!/usr/bin/env python3
"""Does the way L2 is flushed move short workloads' times between processes? (issue 7, session 40)

Session 40's H200 suite runs: workloads under 20 us differ by 2.2% (median) between two runs'
candidate processes, although each one's median is known to 1%: something fixed per process
moves them. One suspect is the flush: zeroing a buffer leaves L2 full of dirty lines, written
back to memory while the timed kernel runs, and where those lines fall against the kernel's own
data depends on the addresses each process got. A flush that reads the buffer leaves clean lines.

This starts PROCS processes in turn; each times a few short kernels (fresh inputs, its own
buffers) with 1,000 samples after each kind of flush: `zero` (the worker's: zero_ of an
L2-sized buffer), `zero2x` (twice the L2), `read` (a max over an L2-sized buffer, read only),
`none`. Per kernel and flush: each process's median and its interquartile range relative to it,
then the spread of the medians across processes (max/min - 1): the figure a flush should shrink.
Then, in each process, two kernels on inputs placed six times anew (the earlier ones kept): the
spread across placements within a process. If it matches the spread across processes, where the
inputs sit is what moves a process's times (session 40: the one reference worker read 3.6% slower
than the candidate processes on workloads under 20 us, which agree with each other on average),
and timing each short workload over several placements would shrink it.

usage: python3 tune/flush_kind.py [PROCS (4)] [SAMPLES (1000)]
"""
import json
import statistics
import subprocess
import sys
import time


def sorted_event_us(call, flush, samples: int) -> list[float]:
    """`samples` event times (us) of `call`, each after `flush`, behind one head start, sorted."""
    import torch

    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(samples)]
    torch.cuda._sleep(100_000_000)  # a head start (about 50 ms): the samples run back to back
    for s, e in events:
        flush()
        s.record()
        call()
        e.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) * 1e3 for s, e in events)


def child_results(script: str, procs: int, samples: int, env_of=None) -> list:
    """Runs `script --child SAMPLES` PROCS times in turn (process i with env_of(i) when given)
    and returns each one's last stdout line, read as JSON."""
    runs = []
    for i in range(procs):
        res = subprocess.run([sys.executable, script, "--child", str(samples)],
                             env=env_of(i) if env_of else None, capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return runs


def child(samples: int) -> None:
    import torch

    torch.cuda.init()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    zero1 = torch.empty(l2, dtype=torch.uint8, device="cuda")
    zero2 = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    read = torch.ones(l2 // 4, dtype=torch.float32, device="cuda")
    flushes = {"zero": zero1.zero_, "zero2x": zero2.zero_, "read": read.max, "none": lambda: None}
    x4k = torch.randn(4096, device="cuda")
    x64k = torch.randn(65536, device="cuda")
    x1m = torch.randn(1 << 20, device="cuda")
    y1m = torch.randn(1 << 20, device="cuda")
    calls = {"add 4K": lambda: x4k + 1, "relu 64K": lambda: torch.relu(x64k),
             "mul 1M": lambda: x1m * y1m, "sum 1M": lambda: x1m.sum()}
    out = {}
    for name, call in calls.items():
        for _ in range(20):
            call()
        for kind, flush in flushes.items():
            for _ in range(5):
                flush()
            xs = sorted_event_us(call, flush, samples)
            med = xs[len(xs) // 2]
            out[f"{name}|{kind}"] = (med, (xs[3 * len(xs) // 4] - xs[len(xs) // 4]) / med)
    # The same kernels on inputs placed anew (the earlier ones kept alive, so each lands
    # elsewhere), with the worker's flush: if the medians spread across placements within this
    # process as much as across processes, where the inputs sit is what differs between processes.
    keep = []
    for name, make in (("add 4K", lambda: torch.randn(4096, device="cuda")),
                       ("relu 64K", lambda: torch.randn(65536, device="cuda"))):
        meds = []
        for _ in range(6):
            x = make()
            keep.append(torch.empty(int(torch.randint(1, 64, (1,))) << 16, dtype=torch.uint8,
                                    device="cuda"))  # a gap of 64 KiB-4 MiB before the next
            call = (lambda x=x: x + 1) if name == "add 4K" else (lambda x=x: torch.relu(x))
            for _ in range(20):
                call()
            xs = sorted_event_us(call, zero1.zero_, samples)
            meds.append(xs[len(xs) // 2])
            keep.append(x)
        out[f"{name}|placements"] = (statistics.median(meds), max(meds) / min(meds) - 1)
    print(json.dumps(out))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
        return
    procs = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    t = time.time()
    runs = child_results(__file__, procs, samples)
    print(f"{procs} processes, {samples} samples each, {time.time() - t:.0f} s")
    print(f"{'kernel':9} {'flush':7} {'medians (us), one per process':42} {'IQR/med':>8} "
          f"{'spread':>7}")
    for key in runs[0]:
        name, kind = key.split("|")
        if kind == "placements":  # (median, spread within the process) per process
            print(f"{name:9} six placements in each process: within-process spread "
                  f"{' '.join(f'{r[key][1] * 100:.1f}%' for r in runs)}; their medians "
                  f"{' '.join(f'{r[key][0]:.2f}' for r in runs)} us")
            continue
        meds = [r[key][0] for r in runs]
        iqr = statistics.median(r[key][1] for r in runs)
        spread = max(meds) / min(meds) - 1
        print(f"{name:9} {kind:7} {' '.join(f'{m:6.2f}' for m in meds):42} {iqr * 100:7.1f}% "
              f"{spread * 100:6.1f}%")


if __name__ == "__main__":
    main()
