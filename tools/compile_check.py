#!/usr/bin/env python3
"""Compiles every Triton kernel a folder of submissions launches to a real GPU binary, with no GPU.

usage: tools/compile_check.py [--dir solutions] [--suite suites/kernelbenchx] [--arch 90]
                              [--perf-elements N] [GLOB ...]

The CPU interpreter (TRITON_INTERPRET=1) runs a kernel's Python body, so it cannot show what only
the compiler sees: a loop-carried variable changing type, an op with no lowering for a dtype
(tl.sqrt_rn on float64), a constexpr misuse. This tool imports each file with the interpreter off,
points Triton at a fake CUDA device (sm_ARCH), and turns every `kernel[grid](...)` into a compile
to cubin (Triton's own ptxas) instead of a launch. It calls the entry point with every test case of
the file's task (built exactly as kbx's worker builds them) and with the perf workloads of at most
`--perf-elements` input elements, so each specialisation the task reaches is compiled.

Nothing runs on a device: after each compile every tensor the launch was given is filled with 1, so
host code that reads a device result (a size from a scan, say) sees small sane values; a call whose
host code still fails on them is reported as `host-skipped` and does not fail the check.
Any compilation error fails it (exit 1). Correctness stays with check.py on the CPU interpreter;
speed with tools/h200_solutions.sh on a GPU.
"""
import argparse
import ast
import importlib.util
import json
import os
import pathlib
import sys

os.environ.pop("TRITON_INTERPRET", None)
ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.errors import CompilationError  # noqa: E402
from triton.runtime.driver import driver  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

from kbx_worker.values import ValueBuilder  # noqa: E402


class FakeCudaDriver:
    """Just enough of a driver for JITFunction.run(warmup=True) to compile for sm_ARCH."""

    def __init__(self, arch: int):
        self.arch = arch

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cuda", self.arch, 32)

    def get_device_interface(self):
        return torch.cuda

    def get_active_torch_device(self):
        return torch.device("cpu")


compiled: list[str] = []


def compile_instead_of_launch(self, grid):
    def call(*args, **kwargs):
        kernel = self.run(*args, grid=grid, warmup=True, **kwargs)
        if "cubin" not in kernel.asm:
            raise CompilationError(None, None, f"{self.__name__}: no cubin produced")
        compiled.append(self.__name__)
        # Nothing ran: give the host small, sane values to read back (a size from a scan, say)
        # instead of uninitialised memory.
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, torch.Tensor):
                try:
                    a.fill_(1)
                except RuntimeError:
                    pass
    return call


def load_module(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(value, env: dict):
    """Replaces workload expressions ("N", "S // 8", {"expr": "B"}) by their values."""
    if isinstance(value, dict):
        if set(value) == {"expr"}:
            return evaluate(value["expr"], env)
        return {k: evaluate(v, env) if k in ("shape", "low", "high", "params", "n", "expr")
                or isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate(v, env) for v in value]
    if isinstance(value, str):
        try:
            tree = ast.parse(value, mode="eval")
        except SyntaxError:
            return value
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if names <= set(env):  # a constant ("1") too: a shape's size-1 dimension
            return eval(compile(tree, "<workload>", "eval"), {"__builtins__": {}}, dict(env))
    return value


def tensor_elements(value) -> int:
    if isinstance(value, dict):
        if "tensor" in value:
            n = 1
            for d in value["tensor"].get("shape", []):
                n *= d if isinstance(d, int) else 1
            return n
        return sum(tensor_elements(v) for v in value.values())
    if isinstance(value, list):
        return sum(tensor_elements(v) for v in value)
    return 0


def calls_of(task: dict, perf_elements: int):
    for case in task.get("cases", []):
        if case.get("raises"):
            continue
        yield case["name"], case.get("args", []), case.get("kwargs", {})
    perf = task.get("perf") or {}
    for i, workload in enumerate(perf.get("workloads", [])):
        args = evaluate(perf.get("args", []), workload)
        kwargs = evaluate(perf.get("kwargs", {}), workload)
        if tensor_elements(args) + tensor_elements(kwargs) <= perf_elements:
            yield f"perf[{i}]", args, kwargs


def check_file(path: pathlib.Path, suite: pathlib.Path, perf_elements: int) -> tuple[int, int, int]:
    category, stem = path.parent.name, path.stem.split("__")[0]
    task_dir = suite / category / stem
    task = json.loads((task_dir / "task.json").read_text())
    reference = load_module(task_dir / "reference.py", f"ref_{category}_{stem}")
    entry = getattr(load_module(path, f"sol_{category}_{stem}"), task["entry"])
    kernels, skipped, failed = set(), 0, 0
    for name, args, kwargs in calls_of(task, perf_elements):
        compiled.clear()
        built_args, built_kwargs = ValueBuilder(0, "cpu", builders=reference).build_call(args, kwargs)
        try:
            entry(*built_args, **built_kwargs)
        except CompilationError as e:
            failed += 1
            print(f"  FAIL {name}: {str(e).strip()[-800:]}")
        except Exception as e:  # noqa: BLE001 - host code fed by garbage device results
            skipped += 1
            print(f"  host-skipped {name}: {type(e).__name__}: {str(e)[:160]}")
        kernels.update(compiled)
    print(f"{'ok  ' if not failed else 'FAIL'} {category}/{path.name}: kernels {sorted(kernels)}"
          f"{f', {skipped} host-skipped' if skipped else ''}")
    return len(kernels), skipped, failed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=str(ROOT / "solutions"))
    ap.add_argument("--suite", default=str(ROOT / "suites" / "kernelbenchx"))
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--perf-elements", type=int, default=1 << 22)
    ap.add_argument("globs", nargs="*", help="files relative to --dir (default: */*.py)")
    args = ap.parse_args()
    driver.set_active(FakeCudaDriver(args.arch))
    JITFunction.__getitem__ = compile_instead_of_launch
    root = pathlib.Path(args.dir).resolve()
    files = sorted({f for g in (args.globs or ["*/*.py"]) for f in root.glob(g)})
    totals = [0, 0, 0]
    for f in files:
        for i, v in enumerate(check_file(f, pathlib.Path(args.suite), args.perf_elements)):
            totals[i] += v
    bad = totals[2]
    print(f"{len(files)} files, {totals[0]} kernels compiled for sm_{args.arch}, "
          f"{totals[1]} host-skipped calls, {bad} compilation failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
