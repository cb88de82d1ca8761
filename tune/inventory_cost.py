#!/usr/bin/env python3
"""Where a workload's kernel inventory spends its time (issue 7's wall time, session 34).

Session 33's profile of the suite on an H200 (cached references): of the candidates' 121 s under
the exclusive GPU hold, the inventory took 18.8 s (3 recorded calls per workload, 2,232
workloads), the inputs built for it again about half of the 6.8 s of inputs. Each recorded call
flushes CUPTI's buffers twice (recorder.clear() and recorder.records()). This times, for a few
calls of different lengths, the worker's own inventory_calls (3 calls) and its parts: the L2
flush, the synchronisations, clear(), the call, records(); the recording's pause and resume; and
an inventory that clears once and reads once, the calls told apart by CUPTI's clock.

usage: KBX_CUPTI_LIBRARY=build-device/libkbx_cupti.so python3 tune/inventory_cost.py [REPEATS (30)]
"""
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from kbx_worker import inventory  # noqa: E402

preloaded = inventory.preload(os.environ.get("KBX_CUPTI_LIBRARY", "build-device/libkbx_cupti.so"))
recorder, state = inventory.start(preloaded)
print("inventory:", state)
import torch  # noqa: E402 - after CUPTI starts, as in the worker

from kbx_worker import timing  # noqa: E402


def ms(fn, repeats):
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    if recorder is None:
        sys.exit("no recorder: " + state)
    lib = preloaded[0]
    lib.kbx_cupti_timestamp.restype = __import__("ctypes").c_uint64
    torch.cuda.init()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    x4k = torch.randn(4096, device="cuda")
    x1m = torch.randn(1 << 20, device="cuda")
    a = torch.randn(1024, 1024, device="cuda")
    calls = {"add 4K": lambda: x4k + 1, "add 1M": lambda: x1m * 2 + 1,
             "softmax 1M": lambda: torch.softmax(x1m.view(1024, 1024), 1),
             "matmul 1024": lambda: a @ a}
    sync = torch.cuda.synchronize
    print(f"{'call':12} {'inventory(3)':>12} {'flush+sync':>10} {'clear':>7} {'call+sync':>9} "
          f"{'records':>8} {'one-read(3)':>11} {'pause+resume':>12}")
    for name, call in calls.items():
        for _ in range(5):
            call()
        sync()

        def whole():
            timing.inventory_calls(call, flush, recorder, {}, 3)

        def part_flush():
            timing._flush(flush, recorder)
            sync()

        def part_call():
            call()
            sync()

        def one_read():
            # clear once; each call between synchronisations, bounded by CUPTI's clock; read once
            recorder.clear()
            bounds = []
            for _ in range(3):
                timing._flush(flush, recorder)
                sync()
                t0 = lib.kbx_cupti_timestamp()
                call()
                sync()
                bounds.append((t0, lib.kbx_cupti_timestamp()))
            records = [r for r in recorder.records() if r[4] != inventory.HARNESS]
            per = [[r for r in records if t0 <= r[1] and r[2] <= t1] for t0, t1 in bounds]
            assert sum(map(len, per)) == len(records), (len(records), [len(p) for p in per])

        def pause_resume():
            sync()
            recorder.set_recording(False)
            sync()
            recorder.set_recording(True)

        row = [ms(whole, repeats), ms(part_flush, repeats), ms(recorder.clear, repeats),
               ms(part_call, repeats), ms(recorder.records, repeats), ms(one_read, repeats),
               ms(pause_resume, repeats)]
        print(f"{name:12} " + " ".join(f"{v:{w}.3f}" for v, w in zip(row, (12, 10, 7, 9, 8, 11, 12))))


if __name__ == "__main__":
    main()
