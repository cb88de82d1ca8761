"""Measures a device's ceilings: copy bandwidth and matrix-multiply throughput per dtype.

A trusted step (`kbx calibrate` runs it in a process of its own; no submission is ever loaded):

    python -m kbx_worker.ceilings --device cuda:0|cpu [--quick]

It prints one JSON object on stdout:
    {"device": {...the worker's device description...}, "torch": "2.11.0+cu130",
     "copy_gbs": 4310.5, "matmul_tflops": {"float16": 740.1, "bfloat16": ..., "float32": ...,
     "float64": ..., "int8": ...}, "method": "...", "sizes": {...}}

Copy bandwidth: a device-to-device copy of a buffer far larger than the L2 (2 GiB on a GPU),
bytes read plus bytes written over the median time. Matrix throughput: a square matmul per dtype
(2 n^3 FLOPs), float32 with TF32 off (how kbx's workers run the eager baseline) and again with
TF32 on ("tfloat32": the roof for float32 kernels that use the tensor cores, e.g. tl.dot's tf32x3),
int8 through torch._int_mm (int32 accumulation). Each figure is the median of REPS timed runs after warm-up,
timed with CUDA events on a GPU and perf_counter on the CPU. A dtype the device or torch cannot
multiply is left out, with the reason under "skipped".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

REPS = 15
WARMUP = 3


def _timer(device: str):
    import torch

    if device.startswith("cuda"):
        def run(fn, reps):
            start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            end = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            for _ in range(WARMUP):
                fn()
            torch.cuda.synchronize()
            for i in range(reps):
                start[i].record()
                fn()
                end[i].record()
            torch.cuda.synchronize()
            return statistics.median(s.elapsed_time(e) for s, e in zip(start, end)) / 1e3
        return run

    def run_cpu(fn, reps):
        for _ in range(WARMUP):
            fn()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)
    return run_cpu


def measure(device: str, quick: bool = False) -> dict:
    import torch

    from . import env

    gpu = device.startswith("cuda")
    if gpu:
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        torch.cuda.set_device(index)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        described = env.describe_cuda(index)
    else:
        described = env.describe_cpu(torch.get_num_threads())
    timed = _timer(device)
    reps = 5 if quick else REPS

    copy_bytes = (2 << 30 if gpu else 256 << 20) >> (4 if quick else 0)
    if gpu:
        free, _total = torch.cuda.mem_get_info()
        while copy_bytes * 2 > free // 2 and copy_bytes > (64 << 20):
            copy_bytes //= 2
    src = torch.empty(copy_bytes // 4, dtype=torch.float32, device=device).fill_(1.0)
    dst = torch.empty_like(src)
    seconds = timed(lambda: dst.copy_(src), reps)
    copy_gbs = 2 * copy_bytes / seconds / 1e9
    del src, dst

    n_default = (8192 if gpu else 512) // (4 if quick else 1)
    matmul, skipped, sizes = {}, {}, {"copy_bytes": copy_bytes}
    for name in ("float16", "bfloat16", "float32", "tfloat32", "float64", "int8"):
        n = n_default // 2 if name == "float64" else n_default
        try:
            if gpu:  # float32 as eager runs it (TF32 off); tfloat32: the tensor cores' float32 path
                torch.backends.cuda.matmul.allow_tf32 = name == "tfloat32"
            if name == "int8":
                a = torch.randint(-64, 64, (n, n), dtype=torch.int8, device=device)
                b = torch.randint(-64, 64, (n, n), dtype=torch.int8, device=device)
                fn = (lambda a=a, b=b: torch._int_mm(a, b))
            else:
                dt = torch.float32 if name == "tfloat32" else getattr(torch, name)
                a = torch.randn(n, n, device=device).to(dt)
                b = torch.randn(n, n, device=device).to(dt)
                fn = (lambda a=a, b=b: torch.mm(a, b))
            seconds = timed(fn, reps)
        except Exception as e:  # noqa: BLE001 - a dtype this device or torch cannot multiply
            skipped[name] = f"{type(e).__name__}: {e}"[:200]
            continue
        matmul[name] = 2 * n ** 3 / seconds / 1e12
        sizes[f"matmul_{name}"] = n
    if gpu:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.cuda.synchronize()
    return {
        "device": described,
        "torch": torch.__version__,
        "copy_gbs": float(f"{copy_gbs:.4g}"),
        "matmul_tflops": {k: float(f"{v:.4g}") for k, v in matmul.items()},
        "skipped": skipped,
        "sizes": sizes,
        "method": (f"median of {reps} timed runs after {WARMUP} warm-ups "
                   f"({'CUDA events' if gpu else 'perf_counter'}); copy: bytes read + written; "
                   "matmul: 2 n^3 FLOPs, float32 with TF32 off, int8 via torch._int_mm"),
        "quick": quick,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", help="cpu or cuda:N")
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer runs (tests)")
    a = ap.parse_args(argv)
    if a.device != "cpu" and not a.device.startswith("cuda"):
        print(f"kbx_worker.ceilings: --device takes cpu or cuda:N (got {a.device!r})", file=sys.stderr)
        return 2
    try:
        result = measure(a.device, a.quick)
    except Exception as e:  # noqa: BLE001 - reported to kbx as the failure's reason
        print(f"kbx_worker.ceilings: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
