"""The suite's task metadata, from `kbx suite list --json` and `kbx suite show --json`."""

import json
from dataclasses import dataclass

from kbx import _binary


@dataclass(frozen=True)
class Task:
    """One task of the suite, as `kbx suite list` describes it."""

    key: str            # "Math/softmax.py", KernelBench-X's file name
    entry: str          # the function a submission defines
    category: str
    difficulty: int
    signature: str
    dtypes: tuple       # ("float32", ...)
    cases: int          # correctness test cases
    workloads: int      # perf workloads
    version: str        # hash of task.json and reference.py; verdicts belong to a version


def _suite_args(suite_root) -> list:
    return ["--suite", str(suite_root)] if suite_root else []


def suite(category: str = None, *, suite_root=None) -> list:
    """Every task of the bundled suite (or of `suite_root`), optionally one category's, as Task values."""
    args = ["suite", "list", "--json", *_suite_args(suite_root)]
    if category:
        args += ["--category", category]
    rows = json.loads(_binary.run(args).stdout)
    return [Task(key=r["key"], entry=r["entry"], category=r["category"], difficulty=r["difficulty"],
                 signature=r["signature"], dtypes=tuple(r["dtypes"]), cases=r["cases"],
                 workloads=r["workloads"], version=r["version"]) for r in rows]


def task(key: str, *, suite_root=None) -> dict:
    """Everything `kbx suite show KEY --json` says about one task: its cases, workloads, contract."""
    return json.loads(_binary.run(["suite", "show", key, "--json", *_suite_args(suite_root)]).stdout)
