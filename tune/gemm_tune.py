#!/usr/bin/env python3
"""Times the split-operand GEMM variants of two expert solutions against eager, on one GPU.

usage: python tune/gemm_tune.py [--smoke] [--task conv2d|bmm|all] [--only REGEX] [--largest N]
                                [--sweep-top N] [--budget SECONDS] [--rep MS]

Tasks: solutions/Convolution/conv2d.py (conv2d_config) and
solutions/Fusion/fused_bmm_dropout_gelu.py (fused_bmm_dropout_gelu_config). Each variant is a
GEMM configuration of the solution file itself (split kind fp16/tf32, flat or fused K loop,
tiles, warps, stages, accumulator chunk, TMA; for conv2d also Winograd F(2x2, 3x3), "wino:"),
so the tuned file is the one evaluated.

Phase 1, per task: the N largest perf workloads (inputs built as kbx's perf sweep builds them:
kbx_worker.values.ValueBuilder on the device), eager timed with TF32 off for cuDNN and cuBLAS (as
kbx's worker runs it), each variant forced through `config=`; triton.testing.do_bench medians.
Columns: ms, speedup over eager, fp32-equivalent TFLOP/s, max abs error against a float64
reference computed on the GPU, and whether every element is within rtol = atol = 1e-3 (the perf
recheck's bound: 100x the task's 1e-5). conv2d: reference = unfold + float64 matmul. bmm: the
timed call itself (p = 0.5, training) is judged like kbx's canonical form: every non-zero element
against gelu(2 * bmm) in float64 (dropped elements are 0 and skipped); `zeros` is the fraction
of exact zeros (dropped, or GELU underflowing). The eager rows show eager's own error.
Phase 2: the whole perf sweep, sum of eager medians / sum of variant medians, for the current
default and the best `--sweep-top` variants of phase 1 that passed, each installed as the
module's DEFAULT_CONFIG (so small shapes keep the solution's own small-shape choice).
A variant that fails to compile or run prints its error and the script goes on; phase 2 and the
remaining variants are skipped once --budget seconds have passed.

--smoke runs everything on the CPU under TRITON_INTERPRET=1 on tiny workloads (one timed call
each, no do_bench): a check that every variant runs and is accurate, not a measurement.
--compile-only compiles every variant for sm_90 on the CPU (no GPU, no interpreter) on mid-size
inputs with the perf workloads' divisibility, and prints each kernel's shared memory (over
227 KB fails at launch), registers and spills (ptxas -v).
"""
import argparse
import json
import math
import os
import pathlib
import re
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--smoke", action="store_true", help="CPU + TRITON_INTERPRET=1, tiny sizes")
ap.add_argument("--compile-only", action="store_true",
                help="no GPU: compile every variant for sm_90 (tools/compile_check.py's fake "
                     "driver) and print shared memory, registers and spills")
ap.add_argument("--task", default="all", choices=["conv2d", "bmm", "all"])
ap.add_argument("--only", default="", help="regex on variant names")
ap.add_argument("--largest", type=int, default=3, help="largest perf workloads in phase 1")
ap.add_argument("--sweep-top", type=int, default=3, help="variants swept in phase 2 (0: none)")
ap.add_argument("--budget", type=float, default=None,
                help="seconds before skipping the rest (default 200; none with --smoke)")
ap.add_argument("--rep", type=float, default=100.0, help="do_bench rep (ms) in phase 1")
ARGS = ap.parse_args()
if ARGS.budget is None:
    ARGS.budget = math.inf if ARGS.smoke else 200.0
if ARGS.smoke:
    os.environ["TRITON_INTERPRET"] = "1"
if ARGS.compile_only:
    os.environ.pop("TRITON_INTERPRET", None)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, str(ROOT / "python"))
from kbx_worker.values import ValueBuilder  # noqa: E402

T0 = time.time()
DEV = "cpu" if ARGS.smoke or ARGS.compile_only else "cuda"
SUITE = ROOT / "suites" / "kernelbenchx"


def load(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def evaluate(value, env):
    """Workload expressions ("N", "S") in a perf arg spec replaced by their values."""
    if isinstance(value, dict):
        return {k: evaluate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate(v, env) for v in value]
    if isinstance(value, str) and value in env:
        return env[value]
    return value


DEADLINE = [math.inf]  # phase 1 of a task stops here (a share of the budget), the sweeps at the budget


def over_budget():
    return time.time() - T0 > min(ARGS.budget, DEADLINE[0])


def name_of(v):
    if v.get("split") == "tf32x3":
        return f"tf32x3/direct/{v['BM']}x{v['BN']}x32/w{v['warps']}s{v['stages']}"
    s = (f"{v['split']}/{'fused' if v['fused'] else 'flat'}/{v['BM']}x{v['BN']}x{v['BK']}"
         f"/w{v['warps']}s{v['stages']}/c{v['chunk']}")
    if v.get("group_m", 8) != 8:
        s += f"/g{v['group_m']}"
    if v.get("tma"):
        s += "/tma"
    if v.get("maxnreg"):
        s += f"/r{v['maxnreg']}"
    if v.get("winograd"):
        s = "wino:" + s
    return s


def V(split, fused, BK, stages, chunk, BM=128, BN=128, warps=8, group_m=8, tma=False, **kw):
    return dict(split=split, BM=BM, BN=BN, BK=BK, warps=warps, stages=stages, fused=fused,
                chunk=chunk, group_m=group_m, tma=tma, **kw)


# The split and pipeline settings both GEMMs are tried with, then each one's own.
SPLIT_VARIANTS = [
    V("tf32", False, 32, 4, 128),
    V("tf32", True, 32, 3, 128),
    V("fp16", False, 64, 4, 128),
    V("fp16", False, 64, 3, 128),
    V("fp16", False, 32, 5, 128),
    V("fp16", False, 128, 3, 128),
    V("fp16", False, 64, 4, 128, tma=True),
    V("fp16", True, 64, 3, 128),
]
CONV_VARIANTS = SPLIT_VARIANTS + [
    V("fp16", True, 32, 4, 128),
    V("fp16", False, 64, 4, 64),
    V("fp16", False, 64, 4, 256),
    V("fp16", False, 64, 4, 0),
    V("fp16", False, 64, 4, 128, group_m=16),
    V("fp16", False, 64, 4, 128, BM=64, BN=128, warps=4),
    V("fp16", False, 64, 4, 128, winograd=True),
    V("fp16", False, 64, 4, 128, winograd=True, tma=True),
    V("fp16", True, 64, 3, 128, winograd=True),
    V("tf32", False, 32, 4, 128, winograd=True),
]
BMM_VARIANTS = [
    dict(split="tf32x3", BM=128, BN=128, BK=32, warps=8, stages=3, fused=False, chunk=0,
         group_m=8),
    *SPLIT_VARIANTS,
    V("fp16", True, 64, 3, 128, tma=True),
    V("fp16", False, 64, 4, 256),
    V("fp16", False, 64, 4, 0),
    V("fp16", False, 64, 4, 128, BM=64, BN=128, warps=4),
]
for _vs in (CONV_VARIANTS, BMM_VARIANTS):
    for _v in _vs:
        _v.setdefault("group_m", 8)


def bench(fn, rep):
    if ARGS.smoke:
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3
    return triton.testing.do_bench(fn, warmup=25, rep=rep, return_mode="median")


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def free():
    if DEV == "cuda":
        torch.cuda.empty_cache()


ROW = "{:<7} {:<22} {:<40} {:>9} {:>8} {:>7} {:>9} {:>5} {}"


def row(task, wl, variant, ms=None, speedup=None, tflops=None, err=None, ok=None, note=""):
    f = lambda x, fmt: "-" if x is None else format(x, fmt)  # noqa: E731
    print(ROW.format(task, wl, variant, f(ms, ".3f"), f(speedup, ".3f") + ("x" if speedup else ""),
                     f(tflops, ".1f"), f(err, ".2e"), "-" if ok is None else ("pass" if ok else "FAIL"),
                     note), flush=True)


def within(y, ref, tol=1e-3):
    return bool(((y - ref).abs() <= tol + tol * ref.abs()).all().item())


class Task:
    def __init__(self, key, short, entry, config_entry, variants):
        cat, stem = key.split("/")
        self.short = short
        self.dir = SUITE / cat / stem
        self.spec = json.loads((self.dir / "task.json").read_text())
        self.ref_mod = load(self.dir / "reference.py", f"ref_{stem}")
        self.sol = load(ROOT / "solutions" / cat / f"{stem}.py", f"sol_{stem}")
        self.eager = getattr(self.ref_mod, self.spec["entry"])
        self.entry = getattr(self.sol, entry)
        self.config_entry = getattr(self.sol, config_entry)
        self.variants = [v for v in variants if re.search(ARGS.only, name_of(v))]
        perf = self.spec["perf"]
        self.workloads = perf["workloads"]

    def build(self, wl, seed=0):
        perf = self.spec["perf"]
        args = evaluate(perf["args"], wl)
        kwargs = evaluate(perf.get("kwargs", {}), wl)
        return ValueBuilder(seed, DEV, builders=self.ref_mod, draw_on_device=True).build_call(args, kwargs)

    def flops(self, wl):
        return eval(self.spec["perf"]["flops"], {"__builtins__": {}}, dict(wl))

    def label(self, wl):
        return " ".join(f"{k}{v}" for k, v in wl.items())


class Conv(Task):
    def reference(self, args, kwargs):
        x, w, b = args[:3]
        stride, padding = kwargs.get("stride", 1), kwargs.get("padding", 0)
        dilation = kwargs.get("dilation", 1)
        N, C, H, W = x.shape
        CO, _, KH, KW = w.shape
        cols = F.unfold(x.double(), (KH, KW), dilation=dilation, padding=padding, stride=stride)
        HO = (H + 2 * padding - dilation * (KH - 1) - 1) // stride + 1
        WO = (W + 2 * padding - dilation * (KW - 1) - 1) // stride + 1
        y = torch.matmul(w.double().reshape(CO, -1), cols) + b.double()[None, :, None]
        del cols
        return y.reshape(N, CO, HO, WO)

    def judge(self, y, ref, args, kwargs):
        return (y.double() - ref).abs().max().item(), within(y.double(), ref), ""

    def smoke_workloads(self):
        return self.workloads[:2]


class Bmm(Task):
    def reference(self, args, kwargs):
        return torch.bmm(args[0].double(), args[1].double())

    def judge(self, y, z64, args, kwargs):
        # The training call judged as kbx's canonical form does: kept elements against
        # gelu(bmm / (1 - p)) in float64, dropped ones (exact zeros) skipped.
        p = kwargs.get("p", 0.5)
        g = F.gelu(z64 / (1.0 - p))
        kept = y != 0
        d = torch.where(kept, (y.double() - g).abs(), torch.zeros_like(g))
        ok = bool((d <= 1e-3 + 1e-3 * g.abs()).all().item())
        return d.max().item(), ok, f"zeros {1 - kept.double().mean().item():.3f}"

    def smoke_workloads(self):
        return [{"S": 48}, {"S": 80}]

    def build(self, wl, seed=0):
        if ARGS.smoke:  # a batch of 2 instead of 32 under the interpreter
            g = torch.Generator().manual_seed(seed)
            S = wl["S"]
            return [torch.randn(2, S, S, generator=g), torch.randn(2, S, S, generator=g)], {}
        return super().build(wl, seed)


def set_tf32_off():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def phase1(task):
    wls = task.smoke_workloads() if ARGS.smoke else task.workloads[-ARGS.largest:][::-1]
    results = {}  # name -> list of (speedup, ok)
    for wl in wls:
        if over_budget():
            row(task.short, task.label(wl), "(skipped: budget)")
            continue
        label = task.label(wl)
        try:
            args, kwargs = task.build(wl)
            sync()
            ref = task.reference(args, kwargs)
            sync()
        except Exception as e:  # noqa: BLE001
            row(task.short, label, "(inputs/reference)", note=f"ERROR {type(e).__name__}: {str(e)[:200]}")
            free()
            continue
        flops = task.flops(wl) if not ARGS.smoke else None
        try:
            t_eager = bench(lambda: task.eager(*args, **kwargs), ARGS.rep)
            y = task.eager(*args, **kwargs)
            err, ok, note = task.judge(y, ref, args, kwargs)
            del y
            row(task.short, label, "eager", t_eager, 1.0, flops and flops / t_eager * 1e-9, err, ok, note)
        except Exception as e:  # noqa: BLE001
            row(task.short, label, "eager", note=f"ERROR {type(e).__name__}: {str(e)[:200]}")
            t_eager = None
        for vi, v in enumerate(task.variants):
            name = name_of(v)
            if over_budget():
                row(task.short, label, f"({len(task.variants) - vi} variants skipped: budget)")
                break
            fn = lambda: task.config_entry(*args, **kwargs, config=v)  # noqa: E731
            try:
                y = fn()
                sync()
                err, ok, note = task.judge(y, ref, args, kwargs)
                del y
                ms = bench(fn, ARGS.rep)
                sp = t_eager / ms if t_eager else None
                row(task.short, label, name, ms, sp, flops and flops / ms * 1e-9, err, ok, note)
                results.setdefault(name, []).append((sp or 0.0, ok))
            except Exception as e:  # noqa: BLE001
                msg = str(e).strip().splitlines()
                row(task.short, label, name, note=f"ERROR {type(e).__name__}: {(msg[-1] if msg else '')[:200]}")
                if os.environ.get("TUNE_TRACE"):
                    traceback.print_exc()
                results.setdefault(name, []).append((0.0, False))
                free()
        del args, kwargs, ref
        free()
    return results


def summary(task, results):
    ranked = sorted(((sum(s for s, _ in r) / len(r), all(ok for _, ok in r), n)
                     for n, r in results.items()), reverse=True)
    for sp, ok, n in ranked[:5]:
        print(f"# {task.short} phase 1: mean speedup {sp:.3f}x {'pass' if ok else 'FAIL'} {n}",
              flush=True)


def phase2(task, results):
    if ARGS.sweep_top <= 0:
        return
    default = dict(task.sol.DEFAULT_CONFIG)
    passing = [(sum(s for s, _ in r) / len(r), n) for n, r in results.items()
               if all(ok for _, ok in r)]
    passing.sort(reverse=True)
    by_name = {name_of(v): v for v in task.variants}
    chosen = [("default", default)] + [(n, by_name[n]) for _, n in passing[:ARGS.sweep_top]
                                       if by_name[n] != default]
    wls = task.smoke_workloads() if ARGS.smoke else task.workloads
    print(f"\n# {task.short}: whole perf sweep ({len(wls)} workloads), sum of eager medians / "
          f"sum of variant medians; each variant installed as DEFAULT_CONFIG", flush=True)
    sums = {n: 0.0 for n, _ in chosen}
    eager_sum = 0.0
    done = 0
    for wl in wls:
        if over_budget():
            print(f"# {task.short}: sweep stopped at {task.label(wl)} (budget); sums cover "
                  f"{done} workloads", flush=True)
            break
        try:
            args, kwargs = task.build(wl, seed=1)
            t_e = bench(lambda: task.eager(*args, **kwargs), 50)
            ts = {}
            for n, cfg in chosen:
                task.sol.DEFAULT_CONFIG.clear()
                task.sol.DEFAULT_CONFIG.update(cfg)
                ts[n] = bench(lambda: task.entry(*args, **kwargs), 50)
        except Exception as e:  # noqa: BLE001
            print(f"# {task.short} {task.label(wl)}: ERROR {type(e).__name__}: {str(e)[:200]}")
            continue
        finally:
            task.sol.DEFAULT_CONFIG.clear()
            task.sol.DEFAULT_CONFIG.update(default)
        eager_sum += t_e
        for n in ts:
            sums[n] += ts[n]
        done += 1
        print(f"  {task.label(wl):<22} eager {t_e:8.3f} ms  " + "  ".join(
            f"{n if n == 'default' else '#' + str(i)}: {ts[n]:.3f} ({t_e / ts[n]:.2f}x)"
            for i, (n, _) in enumerate(chosen)), flush=True)
        del args, kwargs
        free()
    if done:
        for i, (n, _) in enumerate(chosen):
            tag = "default" if n == "default" else f"#{i}"
            print(f"# {task.short} sweep {tag:<8} {n if n != 'default' else name_of(default):<42} "
                  f"sum {sums[n]:9.3f} ms  eager {eager_sum:9.3f} ms  speedup {eager_sum / sums[n]:.3f}x",
                  flush=True)


def compile_only(tasks):
    """Every variant compiled for sm_90 with a fake driver (nothing runs)."""
    import subprocess
    import tempfile
    sys.path.insert(0, str(ROOT / "tools"))
    import compile_check
    from triton.runtime.driver import driver
    from triton.runtime.jit import JITFunction
    driver.set_active(compile_check.FakeCudaDriver(90))
    ptxas = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    seen = []

    def getitem(self, grid):
        def call(*args, **kwargs):
            k = self.run(*args, grid=grid, warmup=True, **kwargs)
            regs = spill = "?"
            if ptxas.exists():
                with tempfile.TemporaryDirectory() as d:
                    pathlib.Path(d, "k.ptx").write_text(k.asm["ptx"])
                    r = subprocess.run([str(ptxas), "-arch=sm_90a", "-v", f"{d}/k.ptx", "-o",
                                        f"{d}/k.o"], capture_output=True, text=True)
                    m = re.search(r"Used (\d+) registers", r.stderr)
                    sp = re.search(r"(\d+) bytes spill stores", r.stderr)
                    regs, spill = (m.group(1) if m else "?"), (sp.group(1) if sp else "?")
            smem = k.metadata.shared
            seen.append(f"{self.__name__}: smem {smem}{' (OVER 227KB)' if smem > 232448 else ''} "
                        f"regs {regs} spill {spill}")
            for a in list(args) + list(kwargs.values()):
                if isinstance(a, torch.Tensor):
                    a.fill_(1)
        return call

    JITFunction.__getitem__ = getitem
    bad = 0
    for task in tasks:
        if task.short == "conv2d":
            args = [torch.randn(8, 1024, 16, 16), torch.randn(2048, 1024, 3, 3), torch.randn(2048)]
        else:
            args = [torch.randn(4, 512, 512), torch.randn(4, 512, 512)]
        for v in task.variants:
            seen.clear()
            try:
                task.config_entry(*args, config=v)
                print(f"{task.short:<7} {name_of(v):<44} ok   " + "; ".join(
                    x for x in seen if not x.startswith(("_amax", "_split"))), flush=True)
            except Exception as e:  # noqa: BLE001
                bad += 1
                msg = str(e).strip().splitlines()
                print(f"{task.short:<7} {name_of(v):<44} FAIL {type(e).__name__}: "
                      f"{(msg[-1] if msg else '')[:300]}", flush=True)
    print(f"# {bad} failures")
    return 1 if bad else 0


def main():
    if ARGS.compile_only:
        tasks = []
        if ARGS.task in ("conv2d", "all"):
            tasks.append(Conv("Convolution/conv2d", "conv2d", "conv2d", "conv2d_config", CONV_VARIANTS))
        if ARGS.task in ("bmm", "all"):
            tasks.append(Bmm("Fusion/fused_bmm_dropout_gelu", "bmm", "fused_bmm_dropout_gelu",
                             "fused_bmm_dropout_gelu_config", BMM_VARIANTS))
        return compile_only(tasks)
    if DEV == "cuda":
        set_tf32_off()
        print(f"# device {torch.cuda.get_device_name()}, torch {torch.__version__}, triton "
              f"{triton.__version__}; cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
              f"matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}")
    else:
        print(f"# smoke: CPU, TRITON_INTERPRET={os.environ.get('TRITON_INTERPRET')}, tiny workloads")
    tasks = []
    if ARGS.task in ("conv2d", "all"):
        tasks.append(Conv("Convolution/conv2d", "conv2d", "conv2d", "conv2d_config", CONV_VARIANTS))
    if ARGS.task in ("bmm", "all"):
        tasks.append(Bmm("Fusion/fused_bmm_dropout_gelu", "bmm", "fused_bmm_dropout_gelu",
                         "fused_bmm_dropout_gelu_config", BMM_VARIANTS))
    all_results = {}
    print(ROW.format("task", "workload", "variant", "ms", "speedup", "TF/s", "max|err|", "1e-3",
                     "note"), flush=True)
    for i, task in enumerate(tasks):
        # Phase 1 of task i ends by (i + 1) / len(tasks) of 80% of the budget: each task gets
        # its share even when an earlier one compiles slowly; the sweeps get the rest.
        DEADLINE[0] = ARGS.budget * 0.8 * (i + 1) / len(tasks)
        all_results[task.short] = phase1(task)
        summary(task, all_results[task.short])
        print(f"# {task.short} phase 1 done at {time.time() - T0:.0f} s", flush=True)
        print(flush=True)
    DEADLINE[0] = math.inf
    for task in tasks:
        if over_budget():
            print(f"# {task.short}: sweep skipped (budget)")
            continue
        phase2(task, all_results[task.short])
    print(f"# done in {time.time() - T0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
