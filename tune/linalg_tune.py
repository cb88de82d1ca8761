#!/usr/bin/env python3
"""Times the LinearAlgebra solutions determinant_lu, solve_and_add_scaled_vector and
cholesky_solve against eager PyTorch, variant by variant, over their tasks' perf sweeps (issue 8:
no task below 0.8x).

usage: tune/linalg_tune.py [--smoke] [--task det|solve|chol|all] [--jobs N] [--only NAME ...]

A variant is a set of keyword arguments of the solution's module-level function with its
tuning knobs (solutions/LinearAlgebra/determinant_lu.py det,
solutions/LinearAlgebra/solve_and_add_scaled_vector.py solve, solutions/LinearAlgebra/
cholesky_solve.py solve); "current" is the solution's entry point with its defaults, "eager" the
task's reference.py. Inputs are built as the perf sweep builds them (randn float32 for det; the
task's upper_triangular builder, randn b and y, alpha 1 for the solve; the task's triangular_perf
factor and rand B [n, 10] for chol). For each workload the table gives two medians in
ms: `bench` (triton.testing.do_bench, its L2 flush) and `hs` (kbx's method: samples enqueued behind
a GPU sleep, so the host's launch time is not counted; L2 flushed by zeroing twice its size before
each sample), and the error against a float64 reference (det: relative error, or `inf+` / `inf-`
when the float32 value overflows and the sign matches; solve: max |x - x64| / max |x64|). The
summary gives each variant's sum-of-medians speedup (sum of eager medians / sum of the variant's)
under both timers; kbx's speedup is the `hs` one. A variant that fails prints its error and the
rest go on.

Triton compiles first run in parallel worker processes (--jobs, default: the CPU count up to 16),
which fill Triton's on-disk cache, so the timed process only loads binaries: the whole run should
take about 1-2 minutes on an H200 host. --smoke runs tiny sizes on the CPU under TRITON_INTERPRET=1
(correctness of the script and the variants only; its timings mean nothing).
"""
import argparse
import importlib.util
import json
import math
import os
import pathlib
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUITE = ROOT / "suites" / "kernelbenchx" / "LinearAlgebra"

DET_VARIANTS = {
    "nb32": {"nb": 32},
    "nb32rolled": {"nb": 32, "unroll": False},
    "w16": {"panel_warps": 16},
    "rolled": {"unroll": False},
    "unfused": {"fuse": False},
    "small128": {"small_max": 128},
}
SOLVE_VARIANTS = {
    "bs16": {"bs": 16, "warps": 4},
    "bs32w4": {"bs": 32, "warps": 4},
    "bs64": {"bs": 64, "warps": 4},
    "bs64w8": {"bs": 64, "warps": 8},
    "bs64flag": {"bs": 64, "warps": 4, "pack": False},
    "bs128w16": {"bs": 128, "warps": 16},
}
CHOL_VARIANTS = {
    "l32w2": {"bs_large": 32, "warps_large": 2},
    "l64w8": {"bs_large": 64, "warps_large": 8},
    "l128w8": {"bs_large": 128, "warps_large": 8},
    "s16": {"bs_small": 16, "warps_small": 2},
    "s32w4": {"bs_small": 32, "warps_small": 4},
    "s64w4": {"bs_small": 64, "warps_small": 4},
}
STEMS = {"det": "determinant_lu", "solve": "solve_and_add_scaled_vector", "chol": "cholesky_solve"}
VARIANTS = {"det": DET_VARIANTS, "solve": SOLVE_VARIANTS, "chol": CHOL_VARIANTS}
KNOBS = {"det": "det", "solve": "solve", "chol": "solve"}  # the solution's function with the knobs


def load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sweep(task: str, smoke: bool) -> list[int]:
    if smoke:
        return {"det": [16, 70], "solve": [32, 100], "chol": [32, 100]}[task]
    spec = json.loads((SUITE / STEMS[task] / "task.json").read_text())
    return [w["n"] for w in spec["perf"]["workloads"]]


def callables(task: str, names: list[str] | None):
    """(name, function(inputs) -> output) for eager, current and each variant."""
    stem = STEMS[task]
    ref = load(SUITE / stem / "reference.py", f"{task}_ref")
    sol = load(ROOT / "solutions" / "LinearAlgebra" / f"{stem}.py", f"{task}_sol")
    eager, current, knobs = getattr(ref, stem), getattr(sol, stem), getattr(sol, KNOBS[task])
    out = [("eager", lambda a: eager(*a)), ("current", lambda a: current(*a))]
    out += [(k, (lambda kw: lambda a: knobs(*a, **kw))(kw)) for k, kw in VARIANTS[task].items()]
    if names:
        out = [c for c in out if c[0] in ("eager",) + tuple(names)]
    return out


def inputs(task: str, n: int, device: str):
    import torch
    gen = torch.Generator().manual_seed(1234 + n)
    if task == "det":
        return (torch.randn(n, n, generator=gen).to(device),)
    if task == "chol":
        ref = load(SUITE / "cholesky_solve" / "reference.py", "chol_ref_b")
        B = torch.rand(n, 10, generator=gen).to(device)
        return (B, ref.triangular_perf(gen, device, n, dtype="float32"))
    ref = load(SUITE / "solve_and_add_scaled_vector" / "reference.py", "solve_ref_b")
    A = ref.upper_triangular(gen, "cpu", n, dtype="float32").to(device)
    b = torch.randn(n, 1, generator=gen).to(device)
    y = torch.randn(n, 1, generator=gen).to(device)
    return (A, b, y, 1.0)


def expected(task: str, args):
    import torch
    if task == "det":
        return torch.linalg.det(args[0].double())
    if task == "chol":
        B, L = args
        return torch.cholesky_solve(B.double(), L.double())
    A, b, y, alpha = args
    return torch.linalg.solve_triangular(A.double(), b.double(), upper=True) + alpha * y.double()


def error(task: str, out, exp) -> str:
    import torch
    out = out.double().cpu()
    exp = exp.cpu()
    if task == "det":
        e32 = exp.float().double()
        if not torch.isfinite(e32).all():
            ok = bool(torch.isinf(out).all()) and bool((out.sign() == exp.sign()).all())
            return ("inf+" if float(exp.sign().min()) > 0 else "inf-") if ok else f"BAD {float(out):.3g}"
        return f"{float(((out - exp).abs() / exp.abs()).max()):.1e}"
    return f"{float((out - exp).abs().max() / exp.abs().max()):.1e}"


class HeadStart:
    """kbx's timer in small: L2 flush + events per sample, a batch enqueued behind a GPU sleep."""

    def __init__(self):
        import torch
        self.torch = torch
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 64 << 20) or (64 << 20)
        self.flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        torch.cuda._sleep(20_000_000)
        end.record()
        torch.cuda.synchronize()
        self.cycles_per_ms = 20_000_000 / max(start.elapsed_time(end), 1e-3)

    def median(self, fn, samples=30, batch=10) -> float:
        torch = self.torch
        fn()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(3):
            fn()
        host_ms = (time.perf_counter() - t) / 3 * 1e3
        torch.cuda.synchronize()
        times = []
        while len(times) < samples:
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(batch)]
            torch.cuda._sleep(int(self.cycles_per_ms * min(50.0, 2.5 * batch * (host_ms + 0.05))))
            for s, e in ev:
                self.flush.zero_()
                s.record()
                fn()
                e.record()
            torch.cuda.synchronize()
            times += [s.elapsed_time(e) for s, e in ev]
        times.sort()
        return times[len(times) // 2]


def _launch_key(fn, grid, args, kwargs):
    """What Triton compiles a launch for: kernel, constexprs and options, argument dtypes and
    16-byte alignment of pointers (integer arguments left out: the epoch changes per call; a
    divisibility specialisation it misses is compiled when timed)."""
    import torch
    spec = []
    for a in args:
        if isinstance(a, torch.Tensor):
            spec.append((str(a.dtype), a.data_ptr() % 16 == 0))
        elif isinstance(a, bool) or not isinstance(a, (int, float)):
            spec.append(repr(a))
    spec += [(k, repr(v)) for k, v in sorted(kwargs.items())]  # constexprs, num_warps
    return (fn.__name__, tuple(spec))


def _patched(on_launch):
    """Context: every `kernel[grid](...)` calls on_launch(fn, grid, args, kwargs) instead."""
    import contextlib
    from triton.runtime.jit import JITFunction

    @contextlib.contextmanager
    def ctx():
        saved = JITFunction.__getitem__
        JITFunction.__getitem__ = lambda self, grid: (
            lambda *a, **k: on_launch(self, grid, a, k))
        try:
            yield
        finally:
            JITFunction.__getitem__ = saved
    return ctx()


def launches(task, name, sizes):
    """[(key, n)] of the distinct compilations variant `name` needs over the sweep (nothing runs:
    the host code of both solutions reads no device result)."""
    calls = dict(callables(task, None))
    found = {}
    for n in sizes:
        args = inputs(task, n, "cuda")
        with _patched(lambda fn, grid, a, k: found.setdefault(_launch_key(fn, grid, a, k), n)):
            calls[name](args)
    return list(found.items())


def precompile(job):
    """Worker: compiles one kernel specialisation (fills Triton's on-disk cache)."""
    task, name, n, key = job
    t = time.time()
    try:
        calls = dict(callables(task, None))
        args = inputs(task, n, "cuda")
        done = []

        def on_launch(fn, grid, a, k):
            if not done and _launch_key(fn, grid, a, k) == key:
                fn.run(*a, grid=grid, warmup=True, **k)
                done.append(1)
        with _patched(on_launch):
            calls[name](args)
        return None, time.time() - t
    except Exception as e:  # noqa: BLE001 - reported by the main process too
        return f"{task}/{name} n={n} {key[0]}: {type(e).__name__}: {str(e)[-200:]}", time.time() - t


def run(task: str, smoke: bool, names, hs: HeadStart | None, bench):
    device = "cpu" if smoke else "cuda"
    sizes = sweep(task, smoke)
    calls = callables(task, names)
    medians: dict[str, dict[int, tuple[float, float]]] = {name: {} for name, _ in calls}
    print(f"\n== {task}: n = {sizes}  (ms: bench = do_bench median, hs = head-start median)")
    print(f"{'variant':<10}" + "".join(f"{n:>22}" for n in sizes))
    for name, fn in calls:
        cells = []
        for n in sizes:
            try:
                args = inputs(task, n, device)
                out = fn(args)
                err = error(task, out, expected(task, args))
                if smoke:
                    t_b = t_h = float("nan")
                else:
                    t_b = bench(lambda: fn(args), warmup=5, rep=40, return_mode="median")
                    t_h = hs.median(lambda: fn(args))
                medians[name][n] = (t_b, t_h)
                cells.append(f"{t_b:7.4f}/{t_h:7.4f} {err:>6}")
            except Exception as e:  # noqa: BLE001 - a failing variant is a result
                cells.append(f"{'FAIL':>22}")
                print(f"  {name} n={n}: {type(e).__name__}: {str(e).strip().splitlines()[-1][:300]}")
        print(f"{name:<10}" + "".join(f"{c:>22}" for c in cells), flush=True)
    eager = medians.get("eager", {})
    print(f"-- {task}: sum-of-medians speedup over eager (bench / hs); per-n hs speedups")
    for name, _ in calls:
        got = medians[name]
        if name == "eager" or len(got) != len(sizes) or len(eager) != len(sizes):
            continue
        sb = sum(eager[n][0] for n in sizes) / sum(got[n][0] for n in sizes)
        sh = sum(eager[n][1] for n in sizes) / sum(got[n][1] for n in sizes)
        per = " ".join(f"{eager[n][1] / got[n][1]:.2f}" for n in sizes)
        print(f"{name:<10} {sb:6.3f}x / {sh:6.3f}x   [{per}]")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="tiny sizes on the CPU interpreter")
    ap.add_argument("--task", default="all", choices=[*STEMS, "all"])
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--only", nargs="*", help="variant names to run (eager always runs)")
    args = ap.parse_args()
    if args.smoke:
        os.environ["TRITON_INTERPRET"] = "1"
    tasks = list(STEMS) if args.task == "all" else [args.task]
    t0 = time.time()
    hs = bench = None
    if not args.smoke:
        import multiprocessing as mp
        names = {t: [nm for nm in ["current"] + list(VARIANTS[t])
                     if not args.only or nm in args.only] for t in tasks}
        jobs, seen = [], set()
        for t in tasks:
            for nm in names[t]:
                try:
                    for key, n in launches(t, nm, sweep(t, False)):
                        if key not in seen:
                            seen.add(key)
                            jobs.append((t, nm, n, key))
                except Exception as e:  # noqa: BLE001
                    print(f"enumerate {t}/{nm}: {type(e).__name__}: {str(e)[-200:]}")
        # Slowest first (the unrolled LU panels): the pool's tail is then short kernels.
        jobs.sort(key=lambda j: ("panel" not in j[3][0], j[3][0]))
        spent = 0.0
        if args.jobs > 1 and jobs:
            with mp.get_context("spawn").Pool(args.jobs) as pool:
                for err, secs in pool.imap_unordered(precompile, jobs):
                    spent += secs
                    if err:
                        print("precompile:", err)
        print(f"precompiled {len(jobs)} kernels in {time.time() - t0:.0f} s "
              f"({spent:.0f} s of compiling over {args.jobs} processes)", flush=True)
        import torch
        from triton.testing import do_bench
        bench = do_bench
        hs = HeadStart()
        print(f"device: {torch.cuda.get_device_name(0)}; sleep clock {hs.cycles_per_ms / 1e3:.0f} MHz")
    for t in tasks:
        try:
            run(t, args.smoke, args.only, hs, bench)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # a run stopped by a time limit keeps its lines
    sys.exit(main())
