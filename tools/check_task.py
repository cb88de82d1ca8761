#!/usr/bin/env python3
"""Checks task folders against docs/suite-format.md and runs their references on the CPU.

usage: tools/check_task.py TASK_DIR [TASK_DIR ...] [--perf-all] [--device cpu|cuda] [--calls shared/catalog/upstream-test-calls.jsonl]

For each task: validates task.json, builds every case's inputs, runs the reference on every case,
evaluates the perf byte/FLOP models for every workload, and runs the reference on the smallest perf
workload (all of them with --perf-all). With --calls, also prints the upstream test calls next to
the cases so their shapes can be compared by eye. Exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import operator
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

REQUIRED = ["format", "key", "entry", "category", "difficulty", "signature", "description",
            "dtypes", "precision", "cases"]
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
        ast.Pow: operator.pow}
_FUNCS = {"min": min, "max": max, "ceil": lambda x: float(__import__("math").ceil(x)),
          "floor": lambda x: float(__import__("math").floor(x)),
          "log2": lambda x: __import__("math").log2(x), "sqrt": lambda x: x ** 0.5}


def eval_expr(text: str, env: dict) -> float:
    """The same grammar kbx's C++ evaluator accepts (common/expr.h)."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise ValueError(f"unknown name {node.id!r} in {text!r}")
            return float(env[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return float(_OPS[type(node.op)](ev(node.left), ev(node.right)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return float(_FUNCS[node.func.id](*[ev(a) for a in node.args]))
        raise ValueError(f"unsupported expression {text!r}")

    return ev(ast.parse(text, mode="eval"))


def _num(v: float):
    return int(v) if float(v).is_integer() else v


def resolve(spec, env: dict):
    """Substitutes perf template expressions, as kbx does before sending a workload."""
    if isinstance(spec, list):
        return [resolve(v, env) for v in spec]
    if not isinstance(spec, dict):
        return spec
    if set(spec) == {"expr"}:
        return _num(eval_expr(spec["expr"], env))
    if set(spec) == {"tensor"}:
        body = dict(spec["tensor"])
        body["shape"] = [_num(eval_expr(d, env)) if isinstance(d, str) else d for d in body.get("shape", [])]
        for k in ("low", "high", "value", "p", "mean", "std", "start", "step"):
            if isinstance(body.get(k), str):
                body[k] = _num(eval_expr(body[k], env))
        return {"tensor": body}
    if "builder" in spec:
        return {**spec, "params": {k: resolve(v, env) for k, v in spec.get("params", {}).items()}}
    return {k: resolve(v, env) for k, v in spec.items()}


def seed_for(key: str, what: str, base: int = 0) -> int:
    h = 0xCBF29CE484222325
    for c in f"{key}|{what}|{base}".encode():
        h ^= c
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h & 0x7FFFFFFFFFFFFFFF


def describe(x) -> str:
    import torch

    if isinstance(x, torch.Tensor):
        return f"{str(x.dtype).replace('torch.', '')}{list(x.shape)}"
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(describe(v) for v in x) + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {describe(v)}" for k, v in x.items()) + "}"
    return repr(x)


def load_module(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"kbx_ref_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PERF_MEMORY_LIMIT = 16 << 30  # every perf workload, with the reference's temporaries, fits in 16 GiB


def check(task_dir: pathlib.Path, perf_all: bool, calls: dict, device: str = "cpu",
          perf_only: bool = False) -> list[str]:
    import torch
    from kbx_worker.values import ValueBuilder

    problems: list[str] = []
    def no_constant(name):
        raise ValueError(f"task.json holds {name}, which is not JSON: write {{\"float\": \"inf\"}}")

    task = json.loads((task_dir / "task.json").read_text(), parse_constant=no_constant)
    for field in REQUIRED:
        if field not in task:
            problems.append(f"missing field {field!r}")
    key = f"{task_dir.parent.name}/{task_dir.name}.py"
    if task.get("key") != key:
        problems.append(f"key {task.get('key')!r} != folder {key!r}")
    names = [c["name"] for c in task.get("cases", [])]
    if len(names) != len(set(names)):
        problems.append("case names are not unique")
    ref = load_module(task_dir / "reference.py")
    fn = getattr(ref, task["entry"], None)
    if fn is None:
        return problems + [f"reference.py does not define {task['entry']!r}"]
    mutated = task.get("mutated_args", [])
    print(f"== {key}  (version {hashlib.sha256((task_dir / 'task.json').read_bytes() + (task_dir / 'reference.py').read_bytes()).hexdigest()[:12]})")
    problems += check_fields(task, ref)
    canonical = getattr(ref, task["canonical"], None) if task.get("canonical") else None
    for case in [] if perf_only else task.get("cases", []):
        seed = seed_for(key, "case|" + case["name"])

        def build():
            b = ValueBuilder(seed, "cpu", ref)
            return b.build_call(resolve(case.get("args", []), {}), resolve(case.get("kwargs", {}), {}))

        try:
            args, kwargs = build()
            torch.manual_seed(seed)
            try:
                out = fn(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - a case may be meant to raise
                names = {t.__name__ for t in type(e).__mro__}
                if case.get("raises") and names & set(case["raises"]):
                    print(f"  case {case['name']:<28} raises {type(e).__name__} as expected")
                    continue
                raise
            if case.get("raises"):
                problems.append(f"case {case['name']}: expected one of {case['raises']} to be raised, "
                                "but the reference returned")
                continue
            extra = "".join(f" arg{i}={describe(args[i])}" for i in mutated)
            extra += "".join(f" kw[{n}]={describe(kwargs.get(n))}" for n in task.get("mutated_kwargs", []))
            if canonical is not None:
                fresh_args, fresh_kwargs = build()
                extra += f" canonical={describe(canonical(out, fresh_args, fresh_kwargs))}"
            print(f"  case {case['name']:<28} in={describe(tuple(args))} kw={list(kwargs)} -> {describe(out)}{extra}")
        except Exception as e:  # noqa: BLE001 - report and go on
            problems.append(f"case {case['name']}: {type(e).__name__}: {e}")
    perf = task.get("perf")
    if perf:
        loads = perf.get("workloads", [])
        for i, env in enumerate(loads):
            try:
                nbytes, flops = eval_expr(perf["bytes"], env), eval_expr(perf["flops"], env)
            except Exception as e:  # noqa: BLE001
                problems.append(f"perf workload {i}: {e}")
                continue
            run = perf_all or i == 0
            line = f"  perf {i:>2} {json.dumps(env)} bytes={nbytes:.4g} flops={flops:.4g}"
            if run:
                try:
                    if device == "cuda":
                        torch.cuda.empty_cache()
                        torch.cuda.reset_peak_memory_stats()
                    b = ValueBuilder(seed_for(key, f"perf|{i}"), device, ref, draw_on_device=device != "cpu")
                    args, kwargs = b.build_call(resolve(perf.get("args", []), env), resolve(perf.get("kwargs", {}), env))
                    out = fn(*args, **kwargs)
                    line += f" in={describe(tuple(args))} -> {describe(out)}"
                    if device == "cuda":
                        torch.cuda.synchronize()
                        peak = torch.cuda.max_memory_allocated()
                        line += f" peak={peak / 2**30:.2f} GiB"
                        if peak > PERF_MEMORY_LIMIT:
                            problems.append(f"perf workload {i}: peak GPU memory {peak / 2**30:.1f} GiB is over 16 GiB")
                    del args, kwargs, out
                except Exception as e:  # noqa: BLE001
                    problems.append(f"perf workload {i}: {type(e).__name__}: {e}")
            print(line)
    if key in calls:
        print("  upstream calls:")
        for c in calls[key]["calls"]:
            args = ", ".join(f"{a['dt']}{a['T']}" if isinstance(a, dict) and "T" in a else json.dumps(a) for a in c["args"])
            print(f"    {c['fn']}({args}) kwargs={json.dumps(c['kwargs'])}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    return problems


def check_fields(task: dict, ref) -> list[str]:
    """The optional fields of docs/suite-format.md: types, and that named functions exist."""
    problems = []
    if task.get("canonical") is not None:
        name = task["canonical"]
        if not isinstance(name, str) or not callable(getattr(ref, name, None)):
            problems.append(f"canonical {name!r} is not a function of reference.py")
    for field in ("mutated_kwargs", "errata"):
        v = task.get(field, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
            problems.append(f"{field!r} must be a list of non-empty strings")
    for case in task.get("cases", []):
        r = case.get("raises")
        if r is not None and (not isinstance(r, list) or not r or not all(isinstance(x, str) for x in r)):
            problems.append(f"case {case.get('name')}: 'raises' must be a non-empty list of class names")
    precision = task.get("precision")
    if isinstance(precision, dict) and "error_bound" in precision:
        k = precision["error_bound"].get("k") if isinstance(precision["error_bound"], dict) else None
        if not isinstance(k, (int, float)) or k <= 0:
            problems.append("precision.error_bound.k must be a positive number")
        if task.get("mutated_args") or task.get("mutated_kwargs"):
            problems.append("error_bound cannot be combined with mutated arguments")
    if task.get("errata") and any("reference" in e.lower() for e in task["errata"]):
        if not callable(getattr(ref, "upstream_reference", None)):
            print("  note: errata mention the reference but reference.py defines no upstream_reference")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="+", type=pathlib.Path)
    ap.add_argument("--perf-all", action="store_true", help="run the reference on every perf workload")
    ap.add_argument("--calls", type=pathlib.Path, help="upstream-test-calls.jsonl to print beside the cases")
    ap.add_argument("--perf-only", action="store_true", help="skip the cases (with --perf-all: a memory check)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="where perf workloads run (cuda: also checks their peak memory against 16 GiB)")
    a = ap.parse_args()
    calls = {}
    if a.calls:
        for line in a.calls.read_text().splitlines():
            row = json.loads(line)
            calls[row["file"]] = row
    bad = 0
    for t in a.tasks:
        bad += bool(check(t, a.perf_all, calls, a.device, a.perf_only))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
