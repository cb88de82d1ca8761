#!/usr/bin/env python3
"""Reads kbx's metrics.json and summary.json the way the public KernelBench-X aggregation code does.

It knows nothing of kbx: it iterates metrics.json as an object keyed by task file, sums and
averages its fields (skipping "N/A"), reads every performance entry, groups by the category in
the key, and recomputes summary.json's figures from metrics.json. Any shape it cannot read ends it
with a traceback, as it would end the public script. With --expect-* it also checks the numbers.

    read_public_exports.py OUT_DIR [--expect-tasks N] [--expect-call N] [--expect-exe N]
                           [--expect-method M] [--expect-code-quality]

Prints a per-category table and one line `public-reader: ok` when everything agrees.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

NA = "N/A"


def numbers(values):
    return [v for v in values if v != NA]


def mean(values):
    values = numbers(values)
    return sum(values) / len(values) if values else NA


def aggregate(metrics: dict) -> dict:
    """The public script's aggregation over the per-task records."""
    total = len(metrics)
    call = sum(1 for record in metrics.values() if record["call_ok"])
    exe = sum(1 for record in metrics.values() if record["exe_ok"])
    perf = sum(1 for record in metrics.values() if record["perf_ok"])
    by_category: dict[str, list[int]] = {}
    for file, record in metrics.items():
        category = file.split("/")[0]
        counts = by_category.setdefault(category, [0, 0, 0])
        counts[0] += 1
        counts[1] += int(bool(record["call_ok"]))
        counts[2] += int(bool(record["exe_ok"]))
        for entry in record["performance"]:
            _ = (entry["input_size"], entry["ms"], entry["GB/s"], entry["TFLOPS"])
        if record["perf_ok"]:
            assert record["runtime_ms"] != NA and record["speedup"] != NA, file
            assert abs(sum(e["ms"] for e in record["performance"]) - record["runtime_ms"]) < 1e-9 * max(1, record["runtime_ms"]), file
        else:
            assert record["speedup"] == NA and record["runtime_ms"] == NA, file
        assert isinstance(record["error"], str) and isinstance(record["code"], str), file
        assert record["exe_ok"] == (record["error"] == ""), file
    speedups = numbers(record["speedup"] for record in metrics.values())
    return {
        "total": total, "call_pass": call, "exe_pass": exe, "perf_pass": perf,
        "call_rate": round(call / total * 100, 1) if total else 0.0,
        "exe_rate": round(exe / total * 100, 1) if total else 0.0,
        "perf_rate": round(perf / total * 100, 1) if total else 0.0,
        "avg_speedup_per_task": sum(speedups) / len(speedups) if speedups else NA,
        "avg_code_quality": mean(record["code_quality"] for record in metrics.values()),
        "avg_maintainability": mean(record["maintainability"] for record in metrics.values()),
        "methods": sorted({record["method"] for record in metrics.values()}),
        "dtypes": sorted({record["dtype"] for record in metrics.values()}),
        "categories": by_category,
    }


def check(name: str, got, want, problems: list[str]) -> None:
    same = abs(got - want) < 1e-9 if isinstance(got, float) and isinstance(want, float) else got == want
    if not same:
        problems.append(f"{name}: got {got!r}, expected {want!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--expect-tasks", type=int)
    ap.add_argument("--expect-call", type=int)
    ap.add_argument("--expect-exe", type=int)
    ap.add_argument("--expect-method")
    ap.add_argument("--expect-code-quality", action="store_true",
                    help="every task has numeric code_quality and maintainability")
    a = ap.parse_args()
    metrics = json.loads((a.out / "metrics.json").read_text())
    summary = json.loads((a.out / "summary.json").read_text())
    agg = aggregate(metrics)
    problems: list[str] = []
    for key in ("total", "call_pass", "exe_pass", "perf_pass", "call_rate", "exe_rate", "perf_rate",
                "avg_speedup_per_task"):
        check(f"summary.json {key} against metrics.json", summary[key], agg[key], problems)
    for flag, key in (("expect_tasks", "total"), ("expect_call", "call_pass"),
                      ("expect_exe", "exe_pass")):
        if getattr(a, flag) is not None:
            check(key, agg[key], getattr(a, flag), problems)
    if a.expect_method is not None:
        check("methods", agg["methods"], [a.expect_method], problems)
    if a.expect_code_quality:
        for file, record in metrics.items():
            if NA in (record["code_quality"], record["maintainability"]):
                problems.append(f"{file}: code_quality {record['code_quality']!r}, "
                                f"maintainability {record['maintainability']!r}")
    print(f"{'category':<16} {'tasks':>5} {'call':>5} {'exe':>5}")
    for category, (n, call, exe) in sorted(agg["categories"].items()):
        print(f"{category:<16} {n:>5} {call:>5} {exe:>5}")
    print(f"total {agg['total']}, call {agg['call_rate']}%, exe {agg['exe_rate']}%, "
          f"perf {agg['perf_rate']}%, avg speedup {agg['avg_speedup_per_task']}, "
          f"code quality {agg['avg_code_quality']}, maintainability {agg['avg_maintainability']}, "
          f"dtypes {agg['dtypes']}")
    for p in problems:
        print(f"public-reader: {p}")
    if problems:
        return 1
    print("public-reader: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
