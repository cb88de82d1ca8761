#!/usr/bin/env python3
"""Where one workload's sampling spends its wall time (issue 7's wall time, session 40).

Session 39's full-suite profile on an H100 (cached references): the candidates' samples took
59.2 s of 110 s of exclusive holds. Workloads of 0.05-0.2 ms took 25.5 ms of sampling for 105
samples whose GPU time (event median plus the L2 flush) is about 14.6 ms: this times the worker's
own `timing.sample` on calls of several lengths and shapes, with its module functions wrapped to
count where the host's time goes (the blocking probe, head-start sleeps, enqueueing, the final
synchronisation, reading the events, the interval), and the L2 flush alone at 1x and 2x the L2
size, with a read of an L2-sized input after each flush (whether 1x evicts as 2x does).

usage: python3 tune/sample_cost.py [REPEATS (3)]
"""
import collections
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import torch  # noqa: E402

from kbx_worker import timing  # noqa: E402

SPENT: collections.Counter = collections.Counter()
COUNT: collections.Counter = collections.Counter()


def wrap(name):
    inner = getattr(timing, name)

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - t
            COUNT[name] += 1
    setattr(timing, name, timed)


def wrap_method(cls, name, label):
    inner = getattr(cls, name)

    def timed(self, *args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(self, *args, **kwargs)
        finally:
            SPENT[label] += time.perf_counter() - t
            COUNT[label] += 1
    setattr(cls, name, timed)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    torch.cuda.init()
    torch.backends.cuda.matmul.allow_tf32 = False
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    print(f"{torch.cuda.get_device_name(0)}, L2 {l2 / 2**20:.0f} MiB")
    flush2 = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    flush1 = torch.empty(l2, dtype=torch.uint8, device="cuda")
    timing.spin_up(flush2, 50.0)

    # The flush alone, and a read of an input of half the L2 right after it.
    def events_ms(fn, n=200):
        out = []
        for _ in range(n):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            out.append((s, e))
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in out)
    half = torch.randn(l2 // 8, device="cuda")  # l2/2 bytes of float32
    print(f"flush 2x L2 {events_ms(flush2.zero_) * 1e3:.1f} us, 1x L2 {events_ms(flush1.zero_) * 1e3:.1f} us")
    for label, buf in (("none", None), ("1x", flush1), ("2x", flush2)):
        out = []
        for _ in range(200):
            if buf is not None:
                buf.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            half.sum()
            e.record()
            out.append((s, e))
        torch.cuda.synchronize()
        print(f"  sum of L2/2 bytes after flush {label}: "
              f"{statistics.median(s.elapsed_time(e) for s, e in out) * 1e3:.2f} us")

    # The host's cost of each thing a sample enqueues (us per call, 500 calls, synchronised after).
    def host_us(fn, n=500):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        per = (time.perf_counter() - t) / n * 1e6
        torch.cuda.synchronize()
        return per
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    ev[0].record()
    torch.cuda.synchronize()
    tiny = torch.randn(4096, device="cuda")
    x1m_ = torch.randn(1 << 20, device="cuda")
    print("host us per call: " + ", ".join(f"{k} {host_us(f):.1f}" for k, f in (
        ("zero_ 2x", flush2.zero_), ("zero_ 1x", flush1.zero_),
        ("Event() x2", lambda: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))),
        ("record", ev[1].record), ("query", ev[0].query), ("elapsed", lambda: ev[0].elapsed_time(ev[1])),
        ("perf_counter", time.perf_counter), ("tiny+1", lambda: tiny + 1),
        ("_sleep(2000)", lambda: torch.cuda._sleep(2000)))))

    # The sample loop itself (a head start, then 256 samples of flush, event, call, event, query),
    # per sample in us of wall: with fresh events per sample as the worker makes them, or with
    # events made once and reused; with the 2x or the 1x flush; with no query.
    pool = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            for _ in range(256)]
    for s_, e_ in pool:
        s_.record()
        e_.record()
    torch.cuda.synchronize()
    cycles = timing._gpu_cycles_per_ms()

    def loop(call, buf, reuse, query=True, n=256):
        events = pool if reuse else [(torch.cuda.Event(enable_timing=True),
                                      torch.cuda.Event(enable_timing=True)) for _ in range(n)]
        torch.cuda.synchronize()
        t = time.perf_counter()
        torch.cuda._sleep(int(cycles * 2.0))
        h = time.perf_counter()
        for s_, e_ in events:
            buf.zero_()
            s_.record()
            call()
            e_.record()
            if query:
                s_.query()
        h = (time.perf_counter() - h) / n * 1e6
        torch.cuda.synchronize()
        med = statistics.median(s_.elapsed_time(e_) for s_, e_ in events) * 1e3
        return (time.perf_counter() - t) / n * 1e6, h, med
    for label, call in (("add 4K", lambda: tiny + 1), ("relu 1M", lambda: torch.relu(x1m_))):
        for variant, args in (("fresh 2x", (flush2, False)), ("reuse 2x", (flush2, True)),
                              ("fresh 1x", (flush1, False)), ("reuse 1x", (flush1, True)),
                              ("reuse 1x noquery", (flush1, True, False))):
            rows = [loop(call, *args) for _ in range(5)]
            w, h, m = (statistics.median(r[i] for r in rows) for i in range(3))
            print(f"  loop {label:8} {variant:17} wall {w:6.1f} us/sample, host {h:5.1f}, event median {m:6.2f} us")

    # Building a perf workload's inputs (the worker's ValueBuilder on the GPU), ms per build.
    from kbx_worker.values import ValueBuilder
    for shape in ([4096], [1 << 20], [4096, 4096]):
        spec = [{"tensor": {"shape": shape}}, {"tensor": {"shape": shape, "init": "rand"}}]
        out = []
        for seed in range(30):
            torch.cuda.synchronize()
            t = time.perf_counter()
            args, _ = ValueBuilder(seed, "cuda", None, draw_on_device=True).build_call(spec, {})
            torch.manual_seed(seed)
            out.append((time.perf_counter() - t) * 1e3)
            del args
        torch.cuda.synchronize()
        print(f"  inputs, two tensors of {shape}: median {statistics.median(out):.3f} ms, "
              f"first {out[0]:.3f} ms, max {max(out):.3f} ms")

    for name in ("blocks_host", "_synchronize", "_sleep", "_elapsed_time", "median_ci_rel",
                 "_zero", "_record", "_query", "steady", "_warm_up"):
        wrap(name)
    wrap_method(timing._Batches, "_enqueue", "_enqueue")

    x4k = torch.randn(4096, device="cuda")
    x1m = torch.randn(1 << 20, device="cuda")
    x4m = torch.randn(4 << 20, device="cuda")
    a = torch.randn(512, 512, device="cuda")

    def chain():  # eight small eager ops: host-heavy, about 0.05-0.1 ms of GPU
        y = torch.sigmoid(x1m) * x1m
        y = y + 1.0
        y = torch.tanh(y)
        y = y * 0.5
        y = torch.relu(y - 0.1)
        return y.sum()

    calls = {"add 4K": lambda: x4k + 1, "relu 1M": lambda: torch.relu(x1m),
             "chain 1M": chain, "softmax 4M": lambda: torch.softmax(x4m.view(2048, 2048), 1),
             "matmul 512": lambda: a @ a}
    settings = timing.Settings()
    settings.ci_budget_ms = 40.0
    print(f"{'call':11} {'wall':>7} {'n':>5} {'median':>8} {'gpu(n)':>7} {'host':>6}  parts (ms)")
    for name, call in calls.items():
        for r in range(repeats):
            SPENT.clear()
            COUNT.clear()
            timing._cycles_per_ms.clear()
            timing._flush_ms.clear()
            extra: dict = {}
            t = time.perf_counter()
            samples, warm = timing.sample(call, settings, flush2, extra)
            wall = (time.perf_counter() - t) * 1e3
            med = statistics.median(samples)
            flush_ms = timing._flush_ms[0] if timing._flush_ms else 0.0
            gpu = len(samples) * (med + flush_ms)
            parts = " ".join(f"{k}={v * 1e3:.2f}({COUNT[k]})" for k, v in SPENT.most_common())
            print(f"{name:11} {wall:7.2f} {len(samples):5d} {med * 1e3:7.1f}u {gpu:7.2f} "
                  f"{extra.get('host_ms', 0) * 1e3:5.1f}u  {extra.get('sampling')} warm={warm} {parts}")


if __name__ == "__main__":
    main()
