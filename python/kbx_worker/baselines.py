"""The compile baseline (`kbx eval --baseline eager,compile`): torch.compile of a task's reference,
compiled before it is timed, then timed by timing.time_workloads exactly as eager is.

Only the trusted reference worker runs this; a candidate worker refuses a `time` request that
names a baseline. Per workload: dynamo's caches are reset and the reference is compiled afresh
with static shapes (`dynamic=False`), so each workload gets the kernels a user compiling for that
one shape would get (no automatic-dynamic recompile after the first shape, no recompile limit
falling back to eager), and one untimed call on inputs built from the workload's seed compiles
it. A failure there is that workload's `torch_compile_error`, never the request's. Then the GPU
is spun up again (compilation idles it for seconds) and the compiled function is timed with the
same warm-up, samples, brackets and inventory as eager (timing.time_workloads).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable

from . import timing
from .errors import WorkerError, error_object, is_gpu_fault, make_error
from .values import ValueBuilder

NAMES = ("compile",)
# torch.compile's modes; kbx sends "default" (docs/metrics.md says why).
MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


@dataclass
class Baseline:
    """The `baseline` of a time request: {"name": "compile", "mode": "default", "cache_dir": D}."""

    name: str
    mode: str = "default"
    cache_dir: str | None = None

    @classmethod
    def from_request(cls, raw: Any) -> "Baseline":
        if not isinstance(raw, dict):
            raise WorkerError("protocol_error", "'baseline' must be an object")
        name, mode = raw.get("name"), raw.get("mode", "default")
        cache_dir = raw.get("cache_dir")
        if name not in NAMES:
            raise WorkerError("protocol_error", f"baseline.name must be one of {NAMES}, "
                                                f"got {name!r}")
        if mode not in MODES:
            raise WorkerError("protocol_error", f"baseline.mode must be one of {MODES}, "
                                                f"got {mode!r}")
        if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir):
            raise WorkerError("protocol_error", "baseline.cache_dir must be a non-empty string")
        return cls(name, mode, cache_dir)


def use_cache_dir(cache_dir: str | None) -> None:
    """Points inductor's caches (FX graphs, generated code) and the Triton cache of its kernels
    at kbx's folder, before anything is compiled. Both are read from the environment at compile
    time, so this holds for every compile after it in this process."""
    if not cache_dir:
        return
    inductor, triton = os.path.join(cache_dir, "inductor"), os.path.join(cache_dir, "triton")
    os.makedirs(inductor, exist_ok=True)
    os.makedirs(triton, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor
    os.environ["TRITON_CACHE_DIR"] = triton


def compile_entry(entry: Callable, baseline: Baseline) -> Callable:
    """A fresh torch.compile of `entry`: dynamo's caches reset first, static shapes."""
    import torch

    torch._dynamo.reset()
    mode = None if baseline.mode == "default" else baseline.mode
    return torch.compile(entry, mode=mode, dynamic=False)


def compile_for(entry: Callable, builders: Any, device: str, workload: dict,
                baseline: Baseline) -> tuple[Callable, Any, float]:
    """Compiles `entry` for `workload`'s inputs by calling it once (untimed); returns the compiled
    function, that call's output, and the compile call's wall time (ms). Raises what compiling
    or the call raised."""
    import torch

    compiled = compile_entry(entry, baseline)
    builder = ValueBuilder(workload["seed"], device, builders, draw_on_device=device == "cuda")
    args, kwargs = builder.build_call(workload["args"], workload["kwargs"])
    torch.manual_seed(workload["seed"])
    start = time.perf_counter()
    out = compiled(*args, **kwargs)
    if device == "cuda":
        torch.cuda.synchronize()
    return compiled, out, (time.perf_counter() - start) * 1e3


def compile_error(workload: dict, exc: BaseException, baseline: Baseline) -> dict:
    """The workload's result when compiling failed: kind `torch_compile_error` (a GPU fault or an
    out-of-memory keeps its own kind), the message saying what was compiled."""
    error = error_object(exc)
    if error["kind"] not in ("gpu_fault", "out_of_memory"):
        error["kind"] = "torch_compile_error"
    error["message"] = (f"torch.compile (mode {baseline.mode}) of the reference failed: "
                        f"{error['type']}: {error['message']}")
    return {"index": workload["index"], "status": "error", "error": error}


def time_workloads(entry: Callable, builders: Any, device: str, workloads: list[dict],
                   settings: timing.Settings, flush_buffer, recorder: Any, baseline: Baseline
                   ) -> tuple[list[dict], bool]:
    """timing.time_workloads of `entry` compiled per workload (module docstring); one result per
    workload, and whether a GPU fault killed the CUDA context. An ok result also has
    `compile_ms`: the compiling call's wall time, never part of the samples."""
    use_cache_dir(baseline.cache_dir)
    results: list[dict] = []
    faulted = False
    for w in workloads:
        if faulted:
            results.append(_dead(w))
            continue
        try:
            compiled, out, compile_ms = compile_for(entry, builders, device, w, baseline)
            del out
        except BaseException as e:  # noqa: BLE001 - the workload's failure is its result
            results.append(compile_error(w, e, baseline))
            faulted = is_gpu_fault(e)
            continue
        timed, faulted = timing.time_workloads(compiled, builders, device, [w], settings,
                                               flush_buffer, recorder,
                                               timing.REFERENCE_INVENTORY_CALLS)
        result = timed[0]
        if result["status"] == "ok":
            result["compile_ms"] = compile_ms
        results.append(result)
    return results, faulted


def _dead(workload: dict) -> dict:
    return {"index": workload["index"], "status": "error",
            "error": make_error("gpu_fault", "an earlier workload killed the CUDA context")}
