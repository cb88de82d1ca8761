#!/usr/bin/env python3
"""What a CUDA context costs to create, and what makes it cheaper.

Session 36 (an H100): with worker starts holding the GPU lock only while they create their CUDA
context, a cached suite run is about timing (108 s of exclusive holds) plus the contexts' creation
(185 starts, 0.3-0.5 s each of work the driver serialises: 1,530 ms median a start in bursts of
4-8, 0.5 s alone), which no timing run may overlap: a context being created beside one slows large
workloads (docs/perf.md). So the next saving is a cheaper context.

Creates contexts in fresh processes (torch imported first, not timed), for each setting below:
SINGLES one at a time, then BURSTS bursts of BURST at once, and prints per setting the median
context creation alone, the bursts' wall and that wall per context (the serialised cost).
Settings: `torch` (torch.cuda.init, set_device, a synchronisation: what a kbx worker does),
`torch+alloc` (the same and the 2x-L2 flush buffer), `connections=1`
(CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware queue instead of 8), `eager` (CUDA_MODULE_LOADING=EAGER,
to see what lazy loading saves), `driver` (libcuda alone: cuInit, cuDevicePrimaryCtxRetain,
cuCtxSetCurrent, cuCtxSynchronize, no torch). With KBX_CUPTI_LIBRARY, `torch+cupti` too (the
kernel inventory started first, as in a worker).

usage: [KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so] python3 tune/context_cost.py [SINGLES (4)]
       [BURSTS (2)] [BURST (8)]
"""

from __future__ import annotations

import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

STARTER = r"""
import ctypes, os, sys, time
mode = sys.argv[1]
sys.path.insert(0, sys.argv[2])
if mode != "driver":
    import torch
if mode == "torch+cupti":
    from kbx_worker import inventory
    recorder, status = inventory.start(None)
    if recorder is None:
        print("cupti " + status, file=sys.stderr)
print("imported", flush=True)
sys.stdin.readline()  # go: every process of a burst starts its context at once
t0 = time.perf_counter()
if mode == "driver":
    cuda = ctypes.CDLL("libcuda.so.1")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cuda.cuInit(0) == 0
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cuda.cuCtxSetCurrent(ctx) == 0
    assert cuda.cuCtxSynchronize() == 0
else:
    torch.cuda.init(); torch.cuda.set_device(0)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    torch.cuda.synchronize()
    if mode == "torch+alloc":
        b = torch.empty(2 * l2, dtype=torch.uint8, device="cuda"); torch.cuda.synchronize()
print((time.perf_counter() - t0) * 1e3, flush=True)
"""

SETTINGS = {
    "torch": ("torch", {}),
    "torch+alloc": ("torch+alloc", {}),
    "connections=1": ("torch", {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}),
    "eager": ("torch", {"CUDA_MODULE_LOADING": "EAGER"}),
    "driver": ("driver", {}),
}


def start(mode: str, extra: dict) -> subprocess.Popen:
    """A starter with its imports done, waiting for go()."""
    env = dict(os.environ, **extra)
    proc = subprocess.Popen([sys.executable, "-c", STARTER, mode, str(ROOT / "python")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "imported"
    return proc


def go(procs: list[subprocess.Popen]) -> list[float]:
    """Lets the starters create their contexts at once; each one's ms from its go."""
    for p in procs:
        p.stdin.write("\n")
        p.stdin.flush()
    out = []
    for p in procs:
        text, _ = p.communicate()
        lines = text.strip().splitlines()
        out.append(float(lines[-1]) if p.returncode == 0 and lines else float("nan"))
    return out


def main() -> int:
    singles = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    bursts = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    burst = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    settings = dict(SETTINGS)
    if os.environ.get("KBX_CUPTI_LIBRARY"):
        settings["torch+cupti"] = ("torch+cupti", {})
    print(f"{'setting':14s} {'alone ms':>9s} {'(min-max)':>14s} {'burst ms':>9s} {'wall/ctx ms':>12s}")
    for name, (mode, extra) in settings.items():
        alone = [go([start(mode, extra)])[0] for _ in range(singles)]
        in_burst, per_ctx = [], []
        for _ in range(bursts):
            ms = go([start(mode, extra) for _ in range(burst)])
            in_burst += ms
            per_ctx.append(max(ms) / burst)  # the burst's wall per context: the serialised cost
        ok = [x for x in alone if x == x]
        print(f"{name:14s} {statistics.median(ok) if ok else float('nan'):9.0f} "
              f"{f'({min(ok):.0f}-{max(ok):.0f})' if ok else '':>14s} "
              f"{statistics.median(in_burst):9.0f} {statistics.median(per_ctx):12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
