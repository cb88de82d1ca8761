"""Loads reference and candidate modules and runs their entry on resolved test cases."""

from __future__ import annotations

import itertools
import linecache
import sys
import time
import types
from dataclasses import dataclass
from typing import Any, Callable

from . import outputs
from .errors import WorkerError, error_object
from .protocol import MAX_FRAME_BYTES
from .values import InputError, ValueBuilder

_module_ids = itertools.count(1)
# Room left in a frame for the header when outputs fill the payload.
_HEADER_ROOM_BYTES = 64 << 20


@dataclass
class Loaded:
    """A module the worker holds by handle, with its entry and the task's builders module."""

    module: types.ModuleType
    entry_name: str
    entry: Callable
    builders: Any


@dataclass
class CaseRun:
    """What run_cases produced: one result per case, and the payload their tensors fill."""

    results: list[dict]
    payload: outputs.Payload
    triton_launches: int
    gpu_fault: bool


class _SourceLoader:
    """Serves a module's source to linecache and inspect (Triton's @jit reads it via inspect)."""

    def __init__(self, source: str):
        self._source = source

    def get_source(self, name: str) -> str:
        return self._source


def load_source(source: str, filename: str, prefix: str) -> types.ModuleType:
    """Executes `source` as a fresh module named `<prefix>_<n>` whose `__file__` is `filename`.

    Raises WorkerError(syntax_error) when it does not compile, WorkerError(import_error) when
    executing it raises.
    """
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        raise WorkerError("syntax_error", "") from e
    name = f"{prefix}_{next(_module_ids)}"
    module = types.ModuleType(name)
    module.__file__ = filename
    module.__loader__ = _SourceLoader(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - running submitted code is this worker's job
    except BaseException as e:  # noqa: BLE001 - SystemExit from a submission is an import error too
        sys.modules.pop(name, None)
        raise WorkerError("import_error", "") from e
    return module


def read_source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise WorkerError("import_error", f"cannot read {path}") from e


def find_entry(module: types.ModuleType, entry_names: list[str]) -> tuple[str, Callable]:
    """The first of `entry_names` the module defines at top level as a callable."""
    for name in entry_names:
        value = module.__dict__.get(name)
        if value is not None and callable(value):
            return name, value
    raise WorkerError("no_entry", f"the module defines none of {', '.join(entry_names)} "
                                  "as a top-level function")


def load_builders(path: str | None) -> Any:
    """The task's reference module (for {"builder": ...} values); its failure is an input error."""
    if not path:
        return None
    try:
        return load_source(read_source(path), path, "kbx_builders")
    except WorkerError as e:
        raise WorkerError("input_error", f"cannot import builders from {path}") from e


def run_cases(loaded: Loaded, device: str, cases: list[dict],
              launches: Callable[[], int]) -> CaseRun:
    """Runs each case in order, stopping at the first that raises; the rest are not_run."""
    run = CaseRun([], outputs.Payload(), 0, False)
    failed = False
    for case in cases:
        if failed:
            run.results.append({"index": case["index"], "status": "not_run"})
            continue
        result = _run_case(loaded, device, case, launches, run.payload)
        run.results.append(result)
        run.triton_launches += result.get("triton_launches", 0)
        failed = result["status"] != "ok"
        run.gpu_fault = failed and result["error"]["kind"] == "gpu_fault"
    return run


def _run_case(loaded: Loaded, device: str, case: dict, launches: Callable[[], int],
              payload: outputs.Payload) -> dict:
    result = {"index": case["index"], "status": "ok", "time_ms": 0.0, "triton_launches": 0}
    try:
        args, kwargs = _build_inputs(loaded, device, case)
        start_launches, start = launches(), time.perf_counter()
        try:
            value = _call(loaded.entry, args, kwargs, device, case["seed"])
        finally:
            result["time_ms"] = (time.perf_counter() - start) * 1e3
            result["triton_launches"] = launches() - start_launches
        result["outputs"] = _flatten(value, args, case["mutated_args"], payload)
    except BaseException as e:  # noqa: BLE001 - whatever the entry raises is this case's error
        result["status"] = "error"
        result["error"] = error_object(e)
    return result


def _build_inputs(loaded: Loaded, device: str, case: dict) -> tuple[list, dict]:
    args, kwargs = ValueBuilder(case["seed"], device, loaded.builders).build_call(
        case["args"], case["kwargs"])
    for i in case["mutated_args"]:
        if not 0 <= i < len(args):
            raise InputError(f"mutated_args names argument {i}, but the call has {len(args)}")
    return args, kwargs


def _call(entry: Callable, args: list, kwargs: dict, device: str, seed: int) -> Any:
    import torch

    torch.manual_seed(seed)
    value = entry(*args, **kwargs)
    synchronize(device)
    return value


def synchronize(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _flatten(value: Any, args: list, mutated_args: list[int], payload: outputs.Payload) -> list:
    """The case's leaves; on failure the payload is left as it was."""
    mark = payload.mark()
    try:
        leaves = outputs.flatten_call(value, args, mutated_args, payload)
        if payload.size > MAX_FRAME_BYTES - _HEADER_ROOM_BYTES:
            raise WorkerError("runtime_error", "the outputs do not fit in one 4 GiB reply frame")
    except BaseException:
        payload.rewind(mark)
        raise
    return leaves

