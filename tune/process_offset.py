#!/usr/bin/env python3
"""What sets a process's offset on short workloads: stream, flush buffer or inputs? (issue 7)

The reference worker of session 40's H200 runs (and of session 35's H100 runs) timed workloads
under 20 us about 0.3 us a sample slower than the candidate processes, while the kernels' own
GPU time (CUPTI) agreed to 0.02 us (tune/offset_split.py): the offset lies between the events and
the kernel, fixed per process. Candidate processes differ from each other the same way (per task,
two runs' candidates differ by up to +-0.4 us on their short workloads).

Each of PROCS processes times short calls (one kernel; and two, as the offset grows per launch;
1,000 samples behind a head start, the L2 flushed by zeroing an L2-sized buffer, as the worker
does) in a grid: STREAMS streams (the default one first, then new ones) x FLUSHES flush buffers
(each allocated anew, the earlier kept) x INPUTS input placements, the whole grid twice.
Printed: per process the grid's medians; then how far
the medians spread (max - min, us) across processes, and within a process across streams, flush
buffers and inputs, and for the same cell timed again (the noise floor). The factor whose spread
within a process matches the spread across processes is the one to vary while sampling (or to
pin). Every other process runs with CUDA_DEVICE_MAX_CONNECTIONS=1, as kbx's workers do: its
streams share one hardware channel, so if the channel is the factor, its streams spread less
than the others' do.

usage: python3 tune/process_offset.py [PROCS (6)] [SAMPLES (1000)]
"""
import json
import os
import statistics
import subprocess
import sys
import time

from flush_kind import child_results, sorted_event_us  # tune/, beside this script

STREAMS, FLUSHES, INPUTS = 3, 2, 2


def child(samples: int) -> None:
    import torch

    torch.cuda.init()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    keep = []
    flushes = []
    for _ in range(FLUSHES):
        flushes.append(torch.empty(l2, dtype=torch.uint8, device="cuda"))
        keep.append(torch.empty(int(torch.randint(1, 64, (1,))) << 16, dtype=torch.uint8,
                                device="cuda"))
    inputs = []
    for _ in range(INPUTS):
        inputs.append((torch.randn(4096, device="cuda"), torch.randn(65536, device="cuda")))
        keep.append(torch.empty(int(torch.randint(1, 64, (1,))) << 16, dtype=torch.uint8,
                                device="cuda"))
    streams = [torch.cuda.current_stream()] + [torch.cuda.Stream() for _ in range(STREAMS - 1)]

    out = {}
    for rep in range(2):  # the whole grid twice: the same cell again is the noise floor
        for si, stream in enumerate(streams):
            with torch.cuda.stream(stream):
                for fi, flush in enumerate(flushes):
                    for ii, (x4k, x64k) in enumerate(inputs):
                        for name, call in (("add 4K", lambda: x4k + 1),
                                           ("relu 64K", lambda: torch.relu(x64k)),
                                           ("2 launches", lambda: torch.relu(x4k + 1))):
                            for _ in range(10):
                                call()
                            xs = sorted_event_us(call, flush.zero_, samples)
                            out[f"{name}|{si}|{fi}|{ii}|{rep}"] = xs[len(xs) // 2]
    print(json.dumps(out))


def sh(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


def spread(values) -> float:
    values = list(values)
    return max(values) - min(values)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
        return
    procs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    t = time.time()
    # Every other process with one hardware queue, as kbx's workers (--cuda-connections 1): its
    # streams then share one channel, so a channel's offset cannot vary across them.
    runs = child_results(__file__, procs, samples, lambda i: dict(
        os.environ, CUDA_DEVICE_MAX_CONNECTIONS="1" if i % 2 else "8"))
    print(f"{procs} processes, {samples} samples a median, {time.time() - t:.0f} s; grid "
          f"{STREAMS} streams x {FLUSHES} flush buffers x {INPUTS} input placements x 2 passes; "
          f"odd processes with CUDA_DEVICE_MAX_CONNECTIONS=1, even with 8")
    print(sh("lscpu | grep -iE 'model name|socket|numa'") + sh("nvidia-smi topo -m"), end="")
    report(runs)


def report(runs: list[dict]) -> None:
    med = statistics.median
    for name in ("add 4K", "relu 64K", "2 launches"):
        keys = [k for k in runs[0] if k.startswith(name + "|")]
        grid = [(tuple(int(x) for x in k.split("|")[1:]), k) for k in keys]
        print(f"{name}: medians (us) per process, in the order taken "
              "(pass, stream, flush, inputs):")
        for i, r in enumerate(runs):
            print(f"  process {i}: median {med(r[k] for k in keys):7.3f}  "
                  + " ".join(f"{r[k]:.2f}" for k in keys))
        across = spread(med(r[k] for k in keys) for r in runs)

        def within(axis: int, parity: int | None = None) -> float:
            """Median over processes (of one parity, or all) and the other axes of the spread
            along `axis`."""
            out = []
            for i, r in enumerate(runs):
                if parity is not None and i % 2 != parity:
                    continue
                groups: dict = {}
                for g, k in grid:
                    rest = g[:axis] + g[axis + 1:]
                    groups.setdefault(rest, []).append(r[k])
                out += [spread(v) for v in groups.values()]
            return med(out)
        print(f"  spread of the process medians {across:.3f} us; within a process: across "
              f"streams {within(0):.3f}, flush buffers {within(1):.3f}, inputs {within(2):.3f}, "
              f"the same cell again {within(3):.3f} us; across streams with 8 connections "
              f"{within(0, 0):.3f}, with 1 {within(0, 1):.3f} us")


if __name__ == "__main__":
    main()
