#!/usr/bin/env python3
"""Marks the cases kbx adds beyond the public tests' calls (`"kbx_only": true` in task.json).

usage: tools/upstream_cases.py [TASK_DIR ...] [--calls PATH] [--write] [--report]

A case mirrors a public test call when its built arguments have the call's signature: every
tensor's shape, dtype and contiguity, every other value (numbers compared as numbers, sequences
item by item, dtypes by name) and the same keyword names. Every other case is kbx's own (edge
shapes, non-contiguous views, extra dtypes or arguments): `--rules kernelbenchx` skips those, so a
verdict under it rests on the calls the public harness makes (docs/errata.md, "Rule sets").

Without --write, checks that every task's marks agree with the calls (exit 1 naming each task that
differs, and each public call no case mirrors); --write rewrites the marks in place. Where the
calls file is not there (a checkout without ../shared), says so and exits 0, as
tools/check_catalog.py does. --report prints each task's counts.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tools"))


def _num(v):
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isnan(v):
            return ("num", "nan")
        return ("num", float(v))
    return None


def upstream_sig(v):
    """The signature of one recorded argument of a public test call."""
    if isinstance(v, dict):
        if "T" in v:
            return ("T", tuple(v["T"]), v["dt"], bool(v.get("noncontig", False)))
        if "v" in v and len(v) == 1:
            x = v["v"]
            if isinstance(x, list):
                return ("seq", tuple(upstream_sig({"v": i}) for i in x))
            return _num(x) or ("v", x)
        if "seq" in v:
            return ("seq", tuple(upstream_sig(i) for i in v["items"]))
        if "dtype" in v:
            return ("dtype", str(v["dtype"]).removeprefix("torch."))
        if "generator" in v:
            return ("generator",)
        if "size" in v:  # torch.Size
            return ("seq", tuple(_num(i) for i in v["size"]))
    return ("?", json.dumps(v, sort_keys=True))


def built_sig(v):
    """The signature of one argument as kbx's worker builds it."""
    import torch

    if isinstance(v, torch.Tensor):
        dense = v.is_contiguous() or v.dim() == 0
        return ("T", tuple(v.shape), str(v.dtype).removeprefix("torch."), not dense)
    if isinstance(v, (list, tuple, torch.Size)):
        return ("seq", tuple(built_sig(i) for i in v))
    if isinstance(v, torch.dtype):
        return ("dtype", str(v).removeprefix("torch."))
    if isinstance(v, torch.Generator):
        return ("generator",)
    return _num(v) or ("v", v)


_DEVICE = ("device",)


def _value(sig, v):
    s = sig(v)
    # The device a test names ("cuda") and the one kbx builds for ({"device": ...}) are the run's.
    return _DEVICE if s in (("v", "cuda"), ("v", "cpu")) else s


def call_sig(args, kwargs, sig):
    """Positional arguments (a trailing None passed explicitly is the default left out) and the
    keyword arguments by name."""
    positional = [_value(sig, a) for a in args]
    while positional and positional[-1] == ("v", None):
        positional.pop()
    return (tuple(positional), tuple(sorted((k, _value(sig, v)) for k, v in kwargs.items())))


def case_sigs(task_dir: pathlib.Path, task: dict) -> dict[str, tuple]:
    from check_task import load_module, resolve, seed_for
    from kbx_worker.values import ValueBuilder

    ref = load_module(task_dir / "reference.py")
    out = {}
    for case in task["cases"]:
        seed = seed_for(task["key"], "case|" + case["name"])
        b = ValueBuilder(seed, "cpu", ref)
        args, kwargs = b.build_call(resolve(case.get("args", []), {}), resolve(case.get("kwargs", {}), {}))
        out[case["name"]] = call_sig(args, kwargs, built_sig)
    return out


def marks_for(task_dir: pathlib.Path, task: dict, calls: list) -> tuple[dict[str, bool], list[int]]:
    """kbx_only per case, and the indexes of public calls that no case mirrors."""
    sigs = case_sigs(task_dir, task)
    wanted = [call_sig(c["args"], c["kwargs"], upstream_sig) for c in calls]
    unmatched = [i for i, w in enumerate(wanted) if w not in sigs.values()]
    return {name: sig not in wanted for name, sig in sigs.items()}, unmatched


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="*", type=pathlib.Path)
    ap.add_argument("--calls", type=pathlib.Path,
                    default=ROOT.parent / "shared" / "catalog" / "upstream-test-calls.jsonl")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    if not a.calls.exists():
        print(f"{a.calls} not found, 0 problems: the kbx_only marks are not checked")
        return 0
    calls = {}
    for line in a.calls.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            calls[r["file"]] = r["calls"]
    dirs = a.tasks or sorted(p.parent for p in (ROOT / "suites" / "kernelbenchx").glob("*/*/task.json"))
    problems = []
    for d in dirs:
        path = d / "task.json"
        text = path.read_text()
        task = json.loads(text)
        key = task["key"]
        if key not in calls:
            problems.append(f"{key}: no public calls recorded")
            continue
        marks, unmatched = marks_for(d, task, calls[key])
        have = {c["name"]: bool(c.get("kbx_only", False)) for c in task["cases"]}
        if a.report:
            print(f"{key:<52} {sum(not m for m in marks.values()):>3} mirror, {sum(marks.values()):>3} "
                  f"kbx_only, {len(unmatched)} of {len(calls[key])} calls unmirrored")
        for i in unmatched:
            c = calls[key][i]
            problems.append(f"{key}: public call {i} ({json.dumps(c['args'])[:160]} "
                            f"{json.dumps(c['kwargs'])[:120]}) is mirrored by no case")
        if have == marks:
            continue
        if a.write:
            for case in task["cases"]:
                if marks[case["name"]]:
                    case["kbx_only"] = True
                else:
                    case.pop("kbx_only", None)
            path.write_text(json.dumps(task, indent=2, ensure_ascii=False) + ("\n" if text.endswith("\n") else ""))
        else:
            wrong = sorted(n for n in marks if marks[n] != have[n])
            problems.append(f"{key}: kbx_only marks differ from the public calls on {', '.join(wrong)} "
                            "(tools/upstream_cases.py --write)")
    for p in problems:
        print(p)
    print(f"{len(dirs)} tasks checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
