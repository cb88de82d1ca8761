#!/usr/bin/env python3
"""Which part of a worker's start slows a timing run beside it?

Session 35 found that large memory-bound workloads timed beside unheld worker starts read up to
1.7x slow (Lion w17, Adam w14: every sample slow), while session 34's test (contexts created
beside an elementwise call of 20 us, a matmul and masked_select) saw nothing. So starts held the
GPU lock shared for their whole length again (about 2 s each, serialised by the driver), and
their holds left 60 s of gaps in a 175 s suite run. If the disturbance comes from one short
phase of the start, only that phase needs the hold (since 784a995: the CUDA context's creation).

A timer process times, over and over, the way kbx does (L2 flushed, CUDA events, one
synchronisation a sample), five calls: `long` (8 `lion` steps, about 10 ms), `lion` (a Lion-like
step on three 256 MB tensors), `copy` (1 GiB), `mid` (16 MB elementwise), `small` (64 KB); each
sample stamped with the host's monotonic clock. Meanwhile starter processes go through a worker's start one phase at a time, 0.4 s
apart, stamping each phase: `cupti` (kbx_worker.inventory.start, when KBX_CUPTI_LIBRARY names
libkbx_cupti), `context` (torch.cuda.init and a synchronisation), `alloc` (the flush buffer,
2x the L2), `triton` (Triton's driver glue), `exit` (the process ending, context torn down).
Starters run one at a time (with and without CUPTI, alternating), then in bursts of BURST at
once. Each sample is put in the phase whose window it overlaps (or `idle`), and per call and
phase the table gives the samples, their median against idle's, the share over 1.05x idle and
their 90th percentile against idle's.
Session 36 (an H100): no phase moved any call's median; with ROUND=8 (the queue full) 20-25% of the
1.3 ms and 10.6 ms calls' rounds read over 1.05x beside a context's creation, none beside the other
phases.

ROUND=N (1): the timer takes N samples back to back before each synchronisation, and each entry
is a round's median (the GPU's queue full, as behind kbx's head starts).
usage: [ROUND=N] KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so python3 tune/start_phases.py [SINGLES (8)]
       [BURSTS (3)] [BURST (6)]
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PHASES = ("cupti", "context", "alloc", "triton", "exit")
GAP_S = 0.4
CONTEXT_MS: dict = {}  # context creation (ms) by whether CUPTI started first

STARTER = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
use_cupti = sys.argv[2] == "1"
marks = []
def mark(name):
    marks.append((name, time.perf_counter()))
import torch
if use_cupti:
    from kbx_worker import inventory
    mark("cupti")
    recorder, status = inventory.start(None)
    mark("cupti_end")
    if recorder is None:
        print("cupti " + status, file=sys.stderr)
    time.sleep(%(gap)s)
mark("context")
torch.cuda.init(); torch.cuda.set_device(0)
l2 = torch.cuda.get_device_properties(0).L2_cache_size
torch.cuda.synchronize()
mark("context_end")
time.sleep(%(gap)s)
mark("alloc")
b = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
mark("alloc_end")
time.sleep(%(gap)s)
mark("triton")
from triton.runtime import driver
d = driver.active.get_current_device(); driver.active.get_current_stream(d)
torch.cuda.synchronize()
mark("triton_end")
time.sleep(%(gap)s)
print(json.dumps(marks), flush=True)
""" % {"gap": GAP_S}

TIMER = r"""
import json, sys, time, torch
stop_file = sys.argv[1]
torch.cuda.init()
l2 = torch.cuda.get_device_properties(0).L2_cache_size
flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
n = 64 << 20
p, g, m = (torch.randn(n, device="cuda") for _ in range(3))
big = torch.empty(1 << 28, device="cuda"); big2 = torch.empty_like(big)
small = torch.randn(1 << 14, device="cuda")
mid = torch.randn(1 << 22, device="cuda")
def lion():
    u = m.mul(0.9).add_(g, alpha=0.1).sign_()
    p.add_(u, alpha=-1e-4)
    m.mul_(0.99).add_(g, alpha=0.01)
def long():
    for _ in range(8):
        lion()
calls = {"long": long, "lion": lion, "copy": lambda: big2.copy_(big), "mid": lambda: mid.mul(2.0),
         "small": lambda: small.mul(2.0)}
for f in calls.values():
    for _ in range(3):
        f()
torch.cuda.synchronize()
out = []
print("ready", flush=True)
import os
ROUND = int(sys.argv[2])
while not os.path.exists(stop_file):
    for name, f in calls.items():
        # ROUND samples back to back, one synchronisation (the GPU's queue stays full, as behind
        # kbx's head starts); each round is one entry: its window and its samples' median.
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(ROUND)]
        t0 = time.perf_counter()
        for a, b in ev:
            flush.zero_(); a.record(); f(); b.record()
        torch.cuda.synchronize()
        ms = sorted(a.elapsed_time(b) for a, b in ev)
        out.append((name, t0, time.perf_counter(), ms[len(ms) // 2]))
print(json.dumps(out), flush=True)
"""


def start_starter(cupti: bool) -> tuple[subprocess.Popen, bool]:
    return subprocess.Popen([sys.executable, "-c", STARTER, str(ROOT / "python"), "1" if cupti else "0"],
                            stdout=subprocess.PIPE, text=True), cupti


def finish(proc_cupti: tuple[subprocess.Popen, bool], windows: list) -> None:
    proc, cupti = proc_cupti
    out, _ = proc.communicate()
    ended = time.perf_counter()
    marks = dict(json.loads(out.strip().splitlines()[-1]))
    tag = "" if cupti else " (no cupti)"
    for name in ("cupti", "context", "alloc", "triton"):
        if name in marks:
            windows.append((name + tag, marks[name], marks[name + "_end"]))
    # The exit: from the starter's last mark to when its pipe closed, plus a little after.
    windows.append(("exit" + tag, marks["triton_end"] + GAP_S, ended + 0.05))
    CONTEXT_MS.setdefault(cupti, []).append((marks["context_end"] - marks["context"]) * 1e3)


def main() -> int:
    singles = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    bursts = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    burst = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    cupti = bool(os.environ.get("KBX_CUPTI_LIBRARY"))
    stop = pathlib.Path(f"/tmp/start-phases-stop-{os.getpid()}")
    stop.unlink(missing_ok=True)
    timer = subprocess.Popen([sys.executable, "-c", TIMER, str(stop), os.environ.get("ROUND", "1")], stdout=subprocess.PIPE, text=True)
    assert timer.stdout.readline().strip() == "ready"
    time.sleep(1.5)  # idle samples first
    windows: list = []
    burst_windows: list = []
    for i in range(singles):
        finish(start_starter(cupti and i % 2 == 0), windows)
        time.sleep(0.5)
    for i in range(bursts):
        procs = [start_starter(cupti) for _ in range(burst)]
        begin = time.perf_counter()
        for p in procs:
            finish(p, [])
        burst_windows.append(("burst of %d" % burst, begin, time.perf_counter()))
        time.sleep(1.0)
    stop.touch()
    samples = json.loads(timer.communicate()[0].strip().splitlines()[-1])
    stop.unlink(missing_ok=True)
    all_windows = windows + burst_windows

    def phase_of(t0: float, t1: float) -> str:
        hit = [name for name, a, b in all_windows if t0 < b and t1 > a]
        return hit[0] if len(hit) == 1 else ("several" if hit else "idle")

    names = sorted({s[0] for s in samples})
    groups: dict = {}
    for name, t0, t1, ms in samples:
        groups.setdefault((name, phase_of(t0, t1)), []).append(ms)
    phase_names = ["idle"] + sorted({w[0] for w in all_windows}) + ["several"]
    print(f"{singles} single starts (CUPTI {'in every other' if cupti else 'off'}), "
          f"{bursts} bursts of {burst}; {len(samples)} samples")
    for c, xs in sorted(CONTEXT_MS.items()):
        print(f"context creation {'with' if c else 'without'} CUPTI: median {statistics.median(xs):.0f} ms "
              f"({min(xs):.0f}-{max(xs):.0f}), {len(xs)} starts")
    print(f"{'call':6s} {'phase':24s} {'n':>5s} {'median ms':>10s} {'x idle':>7s} {'>1.05x':>7s} "
          f"{'p90 x idle p90':>15s}")
    p90_idle = {}
    for name in names:
        xs = sorted(groups.get((name, "idle"), [float("nan")]))
        p90_idle[name] = xs[int(0.9 * (len(xs) - 1))]
    for name in names:
        idle = statistics.median(groups.get((name, "idle"), [float("nan")]))
        for ph in phase_names:
            xs = groups.get((name, ph))
            if not xs:
                continue
            med = statistics.median(xs)
            slow = sum(x > 1.05 * idle for x in xs) / len(xs)
            # the spread as well as the median: a context's creation may lengthen some samples
            # of a short call without moving its median (session 36's question for the calls
            # under 1 ms, never seen slowed in a suite run)
            p90 = sorted(xs)[int(0.9 * (len(xs) - 1))] / p90_idle[name]
            print(f"{name:6s} {ph:24s} {len(xs):5d} {med:10.4f} {med / idle:7.3f} {slow:7.1%} "
                  f"{p90:15.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
