"""Loads reference and candidate modules and runs their entry on resolved test cases."""

from __future__ import annotations

import itertools
import linecache
import sys
import time
import types
from dataclasses import dataclass
from typing import Any, Callable

from . import inventory, outputs
from .errors import WorkerError, error_object
from .protocol import MAX_FRAME_BYTES
from .provenance import Provenance
from .values import InputError, ValueBuilder, then_call

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


def load_builders(path: str | None, code: str | None = None) -> Any:
    """The task's reference module (for {"builder": ...} values), from `code` when kbx sent its
    text, else read from `path`; its failure is an input error."""
    if not path:
        return None
    try:
        return load_source(code if code is not None else read_source(path), path, "kbx_builders")
    except WorkerError as e:
        raise WorkerError("input_error", f"cannot import builders from {path}") from e


def run_cases(loaded: Loaded, device: str, cases: list[dict],
              launches: Callable[[], int], track: bool = False, recorder: Any = None) -> CaseRun:
    """Runs each case in order, stopping at the first that raises; the rest are not_run.
    With `track` (candidates), each result says whether Triton's work reached the returned
    tensors (`triton_output`), how many PyTorch operators the call ran (`torch_ops`), and what
    ran (`kernels`: the GPU kernels with a `recorder`, else Triton launches and PyTorch operators
    by name)."""
    run = CaseRun([], outputs.Payload(), 0, False)
    failed = False
    for case in cases:
        if failed:
            run.results.append({"index": case["index"], "status": "not_run"})
            continue
        result = _run_case(loaded, device, case, launches, run.payload, track, recorder)
        run.results.append(result)
        run.triton_launches += result.get("triton_launches", 0)
        errored = result["status"] != "ok"
        run.gpu_fault = errored and result["error"]["kind"] == "gpu_fault"
        # A case that is meant to raise never stops the ones after it (unless the GPU is gone).
        failed = errored and (not case.get("raises") or run.gpu_fault)
    return run


def _run_case(loaded: Loaded, device: str, case: dict, launches: Callable[[], int],
              payload: outputs.Payload, track: bool = False, recorder: Any = None) -> dict:
    result = {"index": case["index"], "status": "ok", "time_ms": 0.0, "triton_launches": 0}
    try:
        args, kwargs = _build_inputs(loaded, device, case)
        start_launches, start = launches(), time.perf_counter()
        follow = (Provenance(launches, (args, kwargs))
                  if track and hasattr(launches, "watch") else None)
        try:
            if follow is not None:
                if recorder is not None:
                    synchronize(device)  # the inputs' kernels are not the call's
                    recorder.clear()
                with follow:
                    value = _call(loaded.entry, args, kwargs, device, case)
                contributed = follow.contributed(value)
                if contributed is None and case.get("then"):
                    # The work of a `then` method (an optimiser's step) lands in the arguments.
                    contributed = follow.contributed(args)
                if contributed is not None:
                    result["triton_output"] = contributed
                result["torch_ops"] = follow.torch_ops
                result["kernels"] = (inventory.summarize(recorder.records())
                                     if recorder is not None else follow.inventory())
            else:
                value = _call(loaded.entry, args, kwargs, device, case)
        finally:
            result["time_ms"] = (time.perf_counter() - start) * 1e3
            result["triton_launches"] = launches() - start_launches
        if case.get("exact"):
            value = _exact_value(loaded, device, case, value)
        result["outputs"] = _flatten(value, args, case["mutated_args"], payload,
                                     kwargs, case.get("mutated_kwargs", []))
        if case.get("canonical"):
            result["canonical"] = canonical_leaves(loaded, device, case, value, payload)
        if case.get("bound"):
            result["magnitude"] = _magnitude_leaves(loaded, device, case, payload)
    except BaseException as e:  # noqa: BLE001 - whatever the entry raises is this case's error
        result["status"] = "error"
        result["error"] = error_object(e)
        result["error"]["types"] = _type_names(e)
    return result


def _type_names(exc: BaseException) -> list[str]:
    """The names of the exception's class and its bases, for cases that expect an error."""
    return [t.__name__ for t in type(exc).__mro__ if t not in (object, BaseException)]


def canonical_leaves(loaded: Loaded, device: str, case: dict, value: Any,
                     payload: outputs.Payload) -> list:
    """The task's canonical form of `value` (a case's output), flattened under path "out".

    The canonical function comes from the task's reference module and gets the case's inputs
    built afresh, so in-place writes by the call do not reach it. Only a trusted reference
    worker is ever asked for this.
    """
    fn = getattr(loaded.builders, case["canonical"], None)
    if fn is None or not callable(fn):
        raise InputError(f"canonical function {case['canonical']!r} is not defined in the task's "
                         "reference module")
    args, kwargs = _build_inputs(loaded, device, case)
    canon = fn(value, args, kwargs)
    synchronize(device)
    return _flatten(canon, [], [], payload)


def _magnitude_leaves(loaded: Loaded, device: str, case: dict, payload: outputs.Payload) -> list:
    """The entry evaluated in float64 on the absolute values of the floating inputs (error_bound)."""
    args, kwargs = _build_inputs(loaded, device, case)
    value = _call(loaded.entry, _upcast(_absolute(args)), _upcast(_absolute(kwargs)), device, case)
    return _flatten(_to_float64(value), [], [], payload)


def _tree_map(x: Any, fn: Callable[[Any], Any]) -> Any:
    """`x` with `fn` applied to every leaf; lists, tuples (named ones too) and dicts are walked."""
    if isinstance(x, list):
        return [_tree_map(v, fn) for v in x]
    if isinstance(x, tuple):
        return tuple(_tree_map(v, fn) for v in x)
    if isinstance(x, dict):
        return {k: _tree_map(v, fn) for k, v in x.items()}
    return fn(x)


def _absolute(x: Any) -> Any:
    import torch

    def leaf(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return v.abs() if (v.is_floating_point() or v.is_complex()) else v
        return abs(v) if isinstance(v, float) else v

    return _tree_map(x, leaf)


def _to_float64(x: Any) -> Any:
    import torch

    return _tree_map(x, lambda v: v.to(torch.float64)
                     if isinstance(v, torch.Tensor) and v.is_floating_point() else v)


def canonicalize(loaded: Loaded, device: str, cases: list[dict], payload_in: bytes) -> CaseRun:
    """Canonical forms of a candidate's outputs (sent back as leaves), one result per case."""
    run = CaseRun([], outputs.Payload(), 0, False)
    for case in cases:
        result = {"index": case["index"], "status": "ok"}
        mark = run.payload.mark()
        try:
            value = outputs.unflatten(case["outputs"], payload_in, device)
            result["canonical"] = canonical_leaves(loaded, device, case, value, run.payload)
        except BaseException as e:  # noqa: BLE001 - a malformed candidate output fails its case
            run.payload.rewind(mark)
            result = {"index": case["index"], "status": "error", "error": error_object(e)}
        run.results.append(result)
    return run


def _build_inputs(loaded: Loaded, device: str, case: dict) -> tuple[list, dict]:
    # draw_on_device: a perf workload run as a case (the perf recheck), drawn as timing draws it.
    builder = ValueBuilder(case["seed"], device, loaded.builders,
                           draw_on_device=case.get("draw_on_device", False))
    args, kwargs = builder.build_call(case["args"], case["kwargs"])
    for i in case["mutated_args"]:
        if not 0 <= i < len(args):
            raise InputError(f"mutated_args names argument {i}, but the call has {len(args)}")
    return args, kwargs


def _call(entry: Callable, args: list, kwargs: dict, device: str, case: dict) -> Any:
    """The call, then the task's `then` method of its result (then_call), then a synchronise."""
    import torch

    torch.manual_seed(case["seed"])
    value = entry(*args, **kwargs)
    then_call(value, case.get("then"), case.get("then_calls", 1), args, case["seed"])
    synchronize(device)
    return value


def _exact_value(loaded: Loaded, device: str, case: dict, value: Any) -> Any:
    """The entry evaluated in float64 on fresh copies of the inputs, rounded to `value`'s dtypes.

    For tasks whose float32 result is ill-conditioned against the tolerance (long sums): the
    reference output is then within half an ulp of the exact result, and a correct kernel is
    judged against that rather than against one particular float32 summation order.
    """
    # The arguments sent back (mutated_args) are those of the first call; a task that writes into
    # its arguments cannot ask for an exact reference (the suite loader refuses it).
    args, kwargs = _build_inputs(loaded, device, case)
    wide = _call(loaded.entry, _upcast(args), _upcast(kwargs), device, case)
    return _round_like(wide, value)


def _upcast(x: Any) -> Any:
    import torch

    low = (torch.float16, torch.bfloat16, torch.float32)

    def leaf(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            if v.dtype in low:
                return v.to(torch.float64)
            return v.to(torch.complex128) if v.dtype == torch.complex64 else v
        if isinstance(v, torch.dtype):
            return torch.float64 if v in low else v
        return v

    return _tree_map(x, leaf)


def _round_like(wide: Any, like: Any) -> Any:
    """`wide` cast leaf by leaf to the dtypes of `like` (the normal result); other leaves: like's."""
    import torch

    if isinstance(like, torch.Tensor):
        if not isinstance(wide, torch.Tensor) or wide.shape != like.shape:
            raise InputError("the float64 reference returned a different structure")
        return wide.to(like.dtype) if like.is_floating_point() or like.is_complex() else like
    if isinstance(like, (list, tuple)):
        if type(wide) is not type(like) or len(wide) != len(like):
            raise InputError("the float64 reference returned a different structure")
        items = [_round_like(w, v) for w, v in zip(wide, like)]
        return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)
    if isinstance(like, dict):
        return {k: _round_like(wide[k], v) for k, v in like.items()}
    return like


def synchronize(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _flatten(value: Any, args: list, mutated_args: list[int], payload: outputs.Payload,
             kwargs: dict | None = None, mutated_kwargs: list[str] | None = None) -> list:
    """The case's leaves; on failure the payload is left as it was."""
    mark = payload.mark()
    try:
        leaves = outputs.flatten_call(value, args, mutated_args, payload, kwargs or {},
                                      mutated_kwargs or [])
        if payload.size > MAX_FRAME_BYTES - _HEADER_ROOM_BYTES:
            raise WorkerError("runtime_error", "the outputs do not fit in one 4 GiB reply frame")
    except BaseException:
        payload.rewind(mark)
        raise
    return leaves

