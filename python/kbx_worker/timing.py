"""Takes raw GPU timing samples of an entry (the `time` op): warm-up, then L2-flushed events."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields
from typing import Any, Callable

import torch

from . import inventory
from .errors import WorkerError, error_object, is_gpu_fault, make_error
from .values import ValueBuilder

# Captured when the worker starts, before any submission is loaded, so that a submission that
# replaces these attributes cannot change how it is timed.
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed_time = torch.cuda.Event.elapsed_time
_synchronize = torch.cuda.synchronize
_empty_cache = torch.cuda.empty_cache
_zero = torch.Tensor.zero_
_manual_seed = torch.manual_seed
_perf_counter = time.perf_counter


@dataclass
class Settings:
    """The `settings` of a time request; missing fields take these defaults."""

    warmup_ms: float = 5.0
    warmup_min_calls: int = 2
    min_samples: int = 10
    max_samples: int = 100
    budget_ms: float = 20.0
    flush_l2: bool = True
    spin_up_ms: float = 50.0

    @classmethod
    def from_request(cls, raw: Any) -> "Settings":
        if not isinstance(raw, dict):
            raise WorkerError("protocol_error", "'settings' must be an object")
        settings = cls()
        for f in fields(cls):
            if f.name in raw:
                kind = type(getattr(settings, f.name))
                setattr(settings, f.name, _checked(f.name, raw[f.name], kind))
        if settings.min_samples > settings.max_samples or settings.max_samples < 1:
            raise WorkerError("protocol_error", "settings need 1 <= max_samples and "
                                                "min_samples <= max_samples")
        return settings


def _checked(name: str, value: Any, kind: type) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise WorkerError("protocol_error", f"settings.{name} must be a boolean")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise WorkerError("protocol_error", f"settings.{name} must be a non-negative number")
    if kind is int and value != int(value):
        raise WorkerError("protocol_error", f"settings.{name} must be an integer")
    return kind(value)


def time_workloads(entry: Callable, builders: Any, device: str, workloads: list[dict],
                   settings: Settings, flush_buffer, recorder: Any = None
                   ) -> tuple[list[dict], bool]:
    """One result per workload, and whether a GPU fault killed the CUDA context on the way.
    With the kernel inventory's `recorder`, each result also has the kernels of the timed calls
    (`kernels`, over `kernel_calls` calls), their GPU busy time per call (`kernel_busy_ms`), and
    per bracket call the span of its kernels (`bracket_kernel_ms`)."""
    results: list[dict] = []
    faulted = False
    if device == "cuda" and workloads:
        spin_up(flush_buffer, settings.spin_up_ms)
    for w in workloads:
        if device != "cuda":
            results.append(_error(w, make_error("protocol_error", "timing needs a CUDA device")))
        elif faulted:
            results.append(_error(w, make_error("gpu_fault", "an earlier workload killed the "
                                                             "CUDA context")))
        else:
            result = _time_one(entry, builders, w, settings, flush_buffer, recorder)
            faulted = result["status"] == "error" and result["error"]["kind"] == "gpu_fault"
            results.append(result)
    return results, faulted


def _time_one(entry: Callable, builders: Any, workload: dict, settings: Settings,
              flush_buffer, recorder: Any = None) -> dict:
    try:
        builder = ValueBuilder(workload["seed"], "cuda", builders, draw_on_device=True)
        args, kwargs = builder.build_call(workload["args"], workload["kwargs"])
        _manual_seed(workload["seed"])
        call = lambda: entry(*args, **kwargs)  # noqa: E731
        flush = flush_buffer if settings.flush_l2 else None
        extra: dict = {}
        samples, warmup_calls = sample(call, settings, flush, recorder, extra)
        bracket = bracket_samples(call, flush, recorder=recorder, extra=extra)
    except BaseException as e:  # noqa: BLE001 - the workload's failure is its result
        error = error_object(e)
        if not is_gpu_fault(e):
            _empty_cache()
        return _error(workload, error)
    return {"index": workload["index"], "status": "ok", "samples_ms": samples,
            "warmup_calls": warmup_calls, "bracket_ms": bracket, **extra}


def spin_up(buffer, ms: float) -> None:
    """Keeps the GPU busy for about `ms` so its clocks leave idle before the first workload.

    An idle H200 sits at a few hundred MHz; without this, the first workload of a request (often
    the smallest) is timed partly at low clocks.
    """
    if buffer is None or ms <= 0:
        return
    begin = _perf_counter()
    while (_perf_counter() - begin) * 1e3 < ms:
        for _ in range(8):
            _zero(buffer)
        _synchronize()


def _error(workload: dict, error: dict) -> dict:
    return {"index": workload["index"], "status": "error", "error": error}


def _flush(buffer, recorder: Any) -> None:
    """Zeroes the L2-flush buffer; the inventory tags that kernel as the harness's."""
    if buffer is None:
        return
    if recorder is not None:
        recorder.push(inventory.HARNESS)
        try:
            _zero(buffer)
        finally:
            recorder.pop(inventory.HARNESS)
    else:
        _zero(buffer)


def sample(call: Callable[[], Any], settings: Settings, flush_buffer, recorder: Any = None,
           extra: dict | None = None) -> tuple[list[float], int]:
    """Warms `call` up, then times it; returns (samples in ms, warm-up calls). With a recorder,
    `extra` gets the timed calls' kernels and GPU busy time per call."""
    warmup_calls, best_ms = _warm_up(call, settings)
    count = plan_samples(settings, best_ms)
    events = [(_Event(enable_timing=True), _Event(enable_timing=True)) for _ in range(count)]
    if recorder is not None:
        _synchronize()
        recorder.clear()
    for start, end in events:
        _flush(flush_buffer, recorder)
        _record(start)
        call()
        _record(end)
    _synchronize()
    if recorder is not None and extra is not None:
        records = [r for r in recorder.records() if r[4] != inventory.HARNESS]
        extra["kernels"] = inventory.summarize(records)
        extra["kernel_calls"] = count
        extra["kernel_busy_ms"] = inventory.busy_ns(records) / 1e6 / count
    return [float(_elapsed_time(start, end)) for start, end in events], warmup_calls


BRACKET_SAMPLES = 3


def bracket_samples(call: Callable[[], Any], flush_buffer, count: int = BRACKET_SAMPLES,
                    recorder: Any = None, extra: dict | None = None) -> list[float]:
    """Wall times of `call` between two device-wide synchronisations (ms), L2 flushed first.

    Events time one stream; these cover all work the call caused, on any stream or thread. kbx
    compares the two and times by these when the work escaped the events' stream. With a
    recorder, `extra["bracket_kernel_ms"]` gets each call's kernel span (first start to last end).
    """
    out, spans = [], []
    for _ in range(count):
        _flush(flush_buffer, recorder)
        _synchronize()
        if recorder is not None:
            recorder.clear()
        start = _perf_counter()
        call()
        _synchronize()
        out.append((_perf_counter() - start) * 1e3)
        if recorder is not None:
            records = [r for r in recorder.records() if r[4] != inventory.HARNESS]
            spans.append((max(r[2] for r in records) - min(r[1] for r in records)) / 1e6
                         if records else 0.0)
    if recorder is not None and extra is not None:
        extra["bracket_kernel_ms"] = spans
    return out


def _warm_up(call: Callable[[], Any], settings: Settings) -> tuple[int, float]:
    """Calls until both warmup_min_calls and warmup_ms are reached; returns (calls, fastest ms).

    Each call is synchronised, so the fastest call's wall time bounds its device time.
    """
    calls, best_ms = 0, math.inf
    begin = _perf_counter()
    while calls < settings.warmup_min_calls or (_perf_counter() - begin) * 1e3 < settings.warmup_ms:
        start = _perf_counter()
        call()
        _synchronize()
        best_ms = min(best_ms, (_perf_counter() - start) * 1e3)
        calls += 1
    return calls, best_ms


def plan_samples(settings: Settings, per_call_ms: float) -> int:
    """Samples to take: enough to fill budget_ms at `per_call_ms` each, within [min, max]."""
    if per_call_ms <= 0:
        wanted = settings.max_samples
    elif math.isinf(per_call_ms):
        wanted = settings.min_samples
    else:
        wanted = math.ceil(settings.budget_ms / per_call_ms)
    return max(1, min(settings.max_samples, max(settings.min_samples, wanted)))
