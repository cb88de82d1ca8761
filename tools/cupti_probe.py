#!/usr/bin/env python3
"""Checks the kernel inventory against CUDA events on this GPU (a diagnostic; needs CUDA).

usage: KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so tools/cupti_probe.py [api|kernels|off]
  api      CUPTI started with runtime and driver API records (what tags origins), the default;
           paused while events and brackets are taken, then the inventory calls
  kernels  the same with kernel records only (no origins)
  off      no CUPTI (events and brackets only)

Times a Triton vector add and a torch matmul at a few sizes the way the worker does
(kbx_worker.timing: events and brackets with CUPTI paused, then the inventory calls), and prints
per workload the events' median, the brackets, the kernels' busy time per inventory call and the
kernels by origin. With recording paused, events and brackets must match the `off` mode's; the
busy time must not exceed the events' median by much.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from kbx_worker import inventory  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "api"


class _NoRecorder:
    def push(self, tag): pass
    def pop(self, tag): pass


if MODE == "off":
    recorder, state = _NoRecorder(), "off"
else:
    pre = inventory.preload()
    if isinstance(pre, str):
        sys.exit(pre)
    lib, cupti = pre
    if lib.kbx_cupti_start(cupti.encode(), 1 if MODE == "api" else 0) != 0:
        sys.exit("cannot start CUPTI")
    recorder, state = inventory.Recorder(lib), f"on ({MODE})"
print(f"inventory: {state}")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from kbx_worker import timing  # noqa: E402


@triton.jit
def _add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)


def triton_add(x, y):
    out = torch.empty_like(x)
    recorder.push(inventory.TRITON)
    try:
        _add[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    finally:
        recorder.pop(inventory.TRITON)
    return out


def probe(name, call):
    settings = timing.Settings()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda")
    import time
    torch.cuda.synchronize()
    t = time.perf_counter()
    if MODE != "off":
        recorder.set_recording(False)
    pause_ms = (time.perf_counter() - t) * 1e3
    samples, warm = timing.sample(call, settings, flush)
    brackets = timing.bracket_samples(call, flush)
    torch.cuda.synchronize()
    t = time.perf_counter()
    if MODE != "off":
        recorder.set_recording(True)
    resume_ms = (time.perf_counter() - t) * 1e3
    med = statistics.median(samples)
    line = (f"{name:<24} n={len(samples):<4} warm={warm:<5} events={med:9.4f} ms  "
            f"brackets={[round(b, 4) for b in brackets]} pause/resume={pause_ms:.1f}/{resume_ms:.1f} ms")
    if MODE == "off":
        print(line)
        return
    extra = {}
    t0 = recorder_timestamp()
    timing.inventory_calls(call, flush, recorder, extra)
    t1 = recorder_timestamp()
    busy = extra["kernel_busy_ms"]
    print(f"{line}  busy={busy:9.4f} ms ratio={busy / med:6.3f} "
          f"inventory_ms={[round(w, 4) for w in extra['inventory_ms']]} "
          f"spans={[round(w, 4) for w in extra['inventory_kernel_ms']]} "
          f"kernels={[(k['origin'], k['launches']) for k in extra['kernels']]} dropped={recorder.dropped()}")


def recorder_timestamp():
    return int(inventory_lib().kbx_cupti_timestamp())


_lib = []


def inventory_lib():
    if not _lib:
        import ctypes
        lib = ctypes.CDLL(os.environ["KBX_CUPTI_LIBRARY"])
        lib.kbx_cupti_timestamp.restype = ctypes.c_uint64
        _lib.append(lib)
    return _lib[0]


torch.cuda.init()
print(torch.cuda.get_device_name(0), "torch", torch.__version__, "triton", triton.__version__)
for n in (1 << 12, 1 << 20, 1 << 26):
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    probe(f"triton_add n=2^{n.bit_length() - 1}", lambda: triton_add(x, y))
for m in (256, 4096):
    a = torch.randn(m, m, device="cuda", dtype=torch.float16)
    probe(f"torch matmul {m}", lambda: a @ a)
