#!/usr/bin/env python3
"""Where a worker start's `triton_driver` phase goes (360-430 ms median in sessions 43-45's traces,
as long as the CUDA context): times, in a fresh process with CUDA started, each step of building
Triton's CUDA driver, as kbx_worker.child._warm_triton_driver does it.

usage: tune/triton_driver_profile.py            (a fresh TRITON_CACHE_DIR, then the same one again)
       tune/triton_driver_profile.py --one DIR  (one process with TRITON_CACHE_DIR=DIR)
Prints one line per step and process: its wall time in ms."""
import os
import subprocess
import sys
import tempfile
import time


def one() -> None:
    marks = []
    t = time.perf_counter()

    def mark(name):
        nonlocal t
        now = time.perf_counter()
        marks.append((name, (now - t) * 1e3))
        t = now

    import torch
    import triton  # noqa: F401
    mark("import torch, triton")
    torch.cuda.init()
    torch.cuda.set_device(0)
    torch.cuda.synchronize()
    mark("cuda context")
    from triton.backends.nvidia import driver as nv
    mark("import the nvidia driver module")
    nv.libcuda_dirs()
    mark("libcuda_dirs (ldconfig -p)")
    from triton.runtime.build import platform_key
    platform_key()
    mark("platform_key (file -b)")
    nv.CudaUtils()
    mark("CudaUtils (cuda_utils.so: build or load)")
    from triton.runtime import driver
    d = driver.active
    mark("driver.active (the rest of CudaDriver)")
    device = d.get_current_device()
    d.get_current_stream(device)
    torch.cuda.synchronize()
    mark("current device and stream")
    d.get_current_target()
    mark("get_current_target")
    for name, ms in marks:
        print(f"  {name:45s} {ms:9.1f} ms")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        os.environ["TRITON_CACHE_DIR"] = sys.argv[2]
        one()
        return 0
    with tempfile.TemporaryDirectory() as cache:
        for label in ("fresh Triton cache", "the same cache again"):
            print(label)
            subprocess.run([sys.executable, __file__, "--one", cache], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
