"""Takes raw GPU timing samples of an entry (the `time` op): warm-up, then L2-flushed events."""

from __future__ import annotations

import contextlib
import math
import sys
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, NamedTuple

import torch

from . import host_cpus, inventory
from .errors import WorkerError, error_object, is_gpu_fault, make_error
from .values import ValueBuilder, then_call

# Captured when the worker starts, before any submission is loaded, so that a submission that
# replaces these attributes cannot change how it is timed.
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed_time = torch.cuda.Event.elapsed_time
_query = torch.cuda.Event.query
_synchronize = torch.cuda.synchronize
_empty_cache = torch.cuda.empty_cache
_zero = torch.Tensor.zero_
_manual_seed = torch.manual_seed
_perf_counter = time.perf_counter
_num_threads = torch.get_num_threads
_sleep = getattr(torch.cuda, "_sleep", None)  # a kernel that spins for a number of GPU cycles
# CUDA-graph mode (Settings.graph): capture a short call once, time its replays.
_CUDAGraph = torch.cuda.CUDAGraph
_graph = torch.cuda.graph
_replay = torch.cuda.CUDAGraph.replay
_reset_graph = torch.cuda.CUDAGraph.reset
_Stream = torch.cuda.Stream
_wait_stream = torch.cuda.Stream.wait_stream
_use_stream = torch.cuda.stream
_current_stream = torch.cuda.current_stream


CI_MAX_SAMPLES_LIMIT = 100_000
CI_OUT_OF_REACH = 4.0  # adaptive rounds stop once the target needs this many times the budget left
CI_Z = 1.959964  # two-sided 95%


def median_ci_rel(samples: list[float]) -> float:
    """Relative half-width of the distribution-free 95% confidence interval of the median.

    The interval runs between the order statistics at ranks n/2 -+ z*sqrt(n)/2 (0-based, floor
    and ceiling, clamped to the samples); half its width over the median. inf with fewer than 6
    samples or a median that is not positive. kbx's C++ (stats::median_ci_rel) computes the same
    from the stored samples: the worker's figure only decides when to stop sampling."""
    n = len(samples)
    if n < 6:
        return math.inf
    xs = sorted(samples)
    median = xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])
    if not median > 0:
        return math.inf
    half = CI_Z * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half))
    return (xs[hi] - xs[lo]) / (2 * median)


@dataclass
class Settings:
    """The `settings` of a time request; missing fields take these defaults."""

    warmup_ms: float = 2.0
    warmup_min_calls: int = 2
    min_samples: int = 10
    max_samples: int = 100
    budget_ms: float = 20.0
    # Adaptive sampling: after the planned samples, more rounds until the 95% confidence interval
    # of the median is within ci_target of it (relative half-width), the workload's sampling has
    # taken ci_budget_ms of wall time, or ci_max_samples are taken. ci_target 0: the plan only.
    ci_target: float = 0.01
    ci_budget_ms: float = 40.0
    ci_max_samples: int = 2000
    flush_l2: bool = True
    spin_up_ms: float = 50.0
    head_start: bool = True
    # `kbx doctor --timing`: also time each workload with triton.testing.do_bench (its median).
    do_bench: bool = False
    # CUDA-graph mode: a workload whose eager median sample is below graph_max_ms is also captured
    # into a CUDA graph and its replays timed by the same sampler (`graph_samples_ms`).
    graph: bool = False
    graph_max_ms: float = 0.05
    # The process runs on the fastest of its CPUs while it is timed (host_cpus.FastCpus;
    # `kbx eval --timing-cpus fast`); off: wherever the system puts it. Off by default until a run
    # shows it steadies the calls that include host work (session 32: not on six of them).
    fast_cpus: bool = False
    # Each sample of a call that includes host work (no head start: it blocks the host, its launch
    # outlasts any head start, or head starts are off) runs on the next of the process's CPUs
    # (host_cpus.SpreadCpus; `kbx eval --timing-cpus spread`): the median then comes from many CPUs,
    # not from whichever one the thread sat on. Off when absent, as every setting here; kbx sends
    # it on by default since session 33 (steadier on an H200, docs/metrics.md "Host CPUs").
    spread_cpus: bool = False
    # Calls so long that min_samples of them outlast LONG_ROUND_MS take what fills it, but at
    # least this many (`kbx eval --long-call-samples`); calls that wait for the host or launch for
    # longer than a head start covers keep LONG_CALL_MIN_SAMPLES whatever this says (their
    # samples hold the host's share, which moves from sample to sample).
    long_call_samples: int = 5
    # The adaptive rounds' budget for GPU-bound calls shorter than SHORT_CALL_MS at their fastest
    # warm-up call (`kbx eval --short-call-budget-ms`); 0: ci_budget_ms, as for every other call.
    # Such a call's samples are mostly the flush and the events around it, so its rounds cost
    # many samples; calls that hold the host's share keep ci_budget_ms whatever this says.
    short_call_budget_ms: float = 0.0

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
        if settings.ci_target > 0 and settings.ci_max_samples < settings.max_samples:
            raise WorkerError("protocol_error", "settings need max_samples <= ci_max_samples "
                                                "when ci_target is set")
        if not 1 <= settings.long_call_samples <= LONG_CALL_MIN_SAMPLES:
            raise WorkerError("protocol_error", "settings.long_call_samples must be between 1 "
                                                f"and {LONG_CALL_MIN_SAMPLES}")
        if settings.short_call_budget_ms < 0:
            raise WorkerError("protocol_error", "settings.short_call_budget_ms must be >= 0")
        if settings.ci_max_samples > CI_MAX_SAMPLES_LIMIT:
            raise WorkerError("protocol_error",
                              f"settings.ci_max_samples is at most {CI_MAX_SAMPLES_LIMIT}")
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
                   settings: Settings, flush_buffer, recorder: Any = None,
                   inventory_count: int | None = None) -> tuple[list[dict], bool]:
    """One result per workload, and whether a GPU fault killed the CUDA context on the way.

    With the kernel inventory's `recorder`, every workload is timed with CUPTI detached (it slows
    every launch and synchronisation, even with its records off), then each workload that timed
    ok gets `inventory_count` more calls (one for a call over LONG_CALL_MS) with CUPTI
    recording, on inputs of another draw (`inventory_seed`, `inventory_calls`). One detach and one
    attach per request: each costs milliseconds. A candidate's inventory takes INVENTORY_CALLS
    calls (the default; kbx checks each against the others); the trusted reference's takes
    REFERENCE_INVENTORY_CALLS (its kernels only decide whether the task synchronises the host).

    With settings.fast_cpus, the process runs on the fastest of its CPUs while its workloads are
    timed (host_cpus.FastCpus, measured again before a workload when its CPU has slowed): a call
    that includes host work is otherwise timed at whatever speed its CPU has at the moment.
    With settings.spread_cpus, each sample of such a call runs on the next of the process's CPUs
    (host_cpus.SpreadCpus) instead."""
    results: list[dict] = []
    faulted = False
    begin = _perf_counter()
    timed = device == "cuda" and bool(workloads)
    host = host_cpus.FastCpus(min_cpus=min(max(host_cpus.MIN_CPUS, 2 * _num_threads()), 8)) \
        if timed and settings.fast_cpus else None
    spread = host_cpus.SpreadCpus() if timed and settings.spread_cpus else None
    with inventory.paused(recorder if device == "cuda" else None, _synchronize), \
            host or contextlib.nullcontext(), spread or contextlib.nullcontext():
        if timed:
            spin_up(flush_buffer, settings.spin_up_ms)
            _cycles_per_ms.clear()  # calibrated again at the clocks of this request
            _flush_ms.clear()
        setup_ms = (_perf_counter() - begin) * 1e3
        for w in workloads:
            if device != "cuda":
                results.append(_error(w, make_error("protocol_error",
                                                    "timing needs a CUDA device")))
            elif faulted:
                results.append(_error(w, make_error("gpu_fault", "an earlier workload killed "
                                                                 "the CUDA context")))
            else:
                if host is not None and w is not workloads[0]:
                    host.check()  # this CPU may have slowed since the last workload
                result, faulted = _time_one(entry, builders, w, settings, flush_buffer, spread)
                if result["status"] == "ok" and not faulted:
                    mhz = gpu_clock_mhz()  # right after its samples and brackets
                    if mhz is not None:
                        result["gpu_mhz"] = round(mhz, 1)
                results.append(result)
    if results and results[0]["status"] == "ok":
        results[0]["phase_ms"]["setup"] = setup_ms  # CUPTI detached, the GPU spun up, CPUs chosen
        if host is not None and host.figures():
            results[0]["host_cpus"] = host.figures()
        if spread is not None and spread.figures():
            results[0]["spread_cpus"] = spread.figures()
    if timed:
        # Also in the worker's log (kbx keeps the logs, not these figures): the GPU clock and the
        # CPUs a request ran at are the first questions about a request that read slow.
        # The entry's file names the task (the judge loads each module under its task's key).
        code = getattr(entry, "__code__", None)
        source = str(getattr(code, "co_filename", "?"))[-120:]
        clocks = [r.get("gpu_mhz") for r in results]
        medians = [round(_median(r["samples_ms"]), 5) if r.get("samples_ms") else None
                   for r in results]
        cpus = (f"; {host.cpus} fast CPUs of {len(host.allowed)} ({host.probes} measurements, "
                f"fastest canary {host.best_us:.1f} us)" if host is not None and host.probes else "")
        if spread is not None and spread.moves:
            cpus += f"; samples spread over {len(spread.allowed)} CPUs ({spread.moves} moves)"
        try:  # a submission may have replaced sys.stderr: the line is informative only
            print(f"time request: {source}: {len(workloads)} workloads, GPU clock MHz {clocks}, "
                  f"median ms {medians}{cpus}", file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001
            pass
    if recorder is not None and device == "cuda" and not faulted:
        for i, (w, result) in enumerate(zip(workloads, results)):
            if result["status"] != "ok":
                continue
            begin = _perf_counter()
            # One recorded call suffices for a long one (its kernels are the same each time).
            long_call = _median(result["samples_ms"]) > LONG_CALL_MS
            count = 1 if long_call else inventory_count or INVENTORY_CALLS
            inventory_result = _inventory_one(entry, builders, w, settings, flush_buffer,
                                              recorder, count)
            inventory_ms = (_perf_counter() - begin) * 1e3
            if inventory_result["status"] != "ok":
                results[i] = inventory_result
                if inventory_result["error"]["kind"] == "gpu_fault":
                    faulted = True
                    break
            else:
                result.update(inventory_result["extra"])
                result["phase_ms"]["inventory"] = inventory_ms
    return results, faulted


def _call_of(entry: Callable, builders: Any, workload: dict) -> Callable[[], Any]:
    builder = ValueBuilder(workload["seed"], "cuda", builders, draw_on_device=True)
    args, kwargs = builder.build_call(workload["args"], workload["kwargs"])
    _manual_seed(workload["seed"])
    then = workload.get("then")
    if then:
        def call() -> Any:
            value = entry(*args, **kwargs)
            then_call(value, then, workload.get("then_calls", 1), args, workload["seed"])
            return value
        return call
    return lambda: entry(*args, **kwargs)


def _failed(workload: dict, e: BaseException) -> dict:
    error = error_object(e)
    if not is_gpu_fault(e):
        _empty_cache()
    return _error(workload, error)


def _time_one(entry: Callable, builders: Any, workload: dict, settings: Settings,
              flush_buffer, spread: Any = None) -> tuple[dict, bool]:
    """The workload's result, and whether a GPU fault killed the CUDA context on the way (in the
    eager timing, or in the graph mode's capture or replays, which leave the eager result ok)."""
    try:
        t0 = _perf_counter()
        call = _call_of(entry, builders, workload)
        t1 = _perf_counter()
        flush = flush_buffer if settings.flush_l2 else None
        extra: dict = {}
        samples, warmup_calls = sample(call, settings, flush, extra, spread)
        t2 = _perf_counter()
        # A long call's brackets agree with its events from the first: one a round suffices.
        count = 1 if _median(samples) > LONG_CALL_MS else BRACKET_SAMPLES
        bracket = bracket_samples(call, flush, count)
        for pause in BRACKET_RETRY_PAUSES_S:
            if not brackets_disagree(bracket, samples, extra.get("host_ms")):
                break
            _host_pause(pause)  # out of whatever held the host up
            bracket += bracket_samples(call, flush, count)
        t3 = _perf_counter()
        if settings.do_bench:
            extra["do_bench_ms"] = _do_bench_median(call)
    except BaseException as e:  # noqa: BLE001 - the workload's failure is its result
        failed = _failed(workload, e)
        return failed, failed["error"]["kind"] == "gpu_fault"
    # Where the request's wall time went (informative only: `kbx eval --trace` draws it).
    warmup_ms = extra.pop("warmup_ms", 0.0)
    phases = {"inputs": (t1 - t0) * 1e3, "warmup": warmup_ms,
              "samples": (t2 - t1) * 1e3 - warmup_ms, "brackets": (t3 - t2) * 1e3}
    result = {"index": workload["index"], "status": "ok", "samples_ms": samples,
              "warmup_calls": warmup_calls, "bracket_ms": bracket, "phase_ms": phases, **extra}
    faulted = False
    if settings.graph and _median(samples) < settings.graph_max_ms:
        begin = _perf_counter()
        faulted = time_graph(call, settings, flush, result)
        phases["graph"] = (_perf_counter() - begin) * 1e3
    return result, faulted


GRAPH_WARMUP_CALLS = 3   # calls on a side stream before the capture (PyTorch's recipe)
GRAPH_ERROR_CHARS = 200


def time_graph(call: Callable[[], Any], settings: Settings, flush_buffer, result: dict) -> bool:
    """CUDA-graph mode: captures `call` (on the inputs eager was timed on) into a CUDA graph and
    times `graph.replay()` with exactly eager's sampler (`sample`: warm-up, L2 flush, head start,
    adaptive rounds). Puts the samples in result["graph_samples_ms"], or, when the capture or a
    replay raises, a short "Type: first line" in result["graph_error"]: the eager result stands
    either way. The graph and its memory pool live only for this call. Returns whether a GPU fault
    killed the CUDA context."""
    graph = None
    faulted = False
    try:
        side = _Stream()
        _wait_stream(side, _current_stream())
        with _use_stream(side):
            for _ in range(GRAPH_WARMUP_CALLS):
                call()
        _wait_stream(_current_stream(), side)
        graph = _CUDAGraph()
        with _graph(graph):
            call()
        samples, _ = sample(lambda: _replay(graph), settings, flush_buffer)
        result["graph_samples_ms"] = samples
    except BaseException as e:  # noqa: BLE001 - reported beside the eager result, never instead
        faulted = is_gpu_fault(e)
        result["graph_error"] = _short_error(e)
    try:
        if graph is not None and not faulted:
            _reset_graph(graph)
        graph = None
        if not faulted:
            _empty_cache()
    except BaseException as e:  # noqa: BLE001 - a capture that left the stream unusable, say
        faulted = faulted or is_gpu_fault(e)
        result.pop("graph_samples_ms", None)
        result.setdefault("graph_error", _short_error(e))
    return faulted


def _short_error(e: BaseException) -> str:
    """"RuntimeError: first line of the message", at most GRAPH_ERROR_CHARS characters."""
    error = error_object(e)
    lines = error["message"].splitlines()
    text = f"{error['type']}: {lines[0]}" if lines else error["type"]
    return text[:GRAPH_ERROR_CHARS]


def _do_bench_median(call: Callable[[], Any]) -> float:
    """Triton's own timer on the same call, as `kbx doctor --timing` compares kbx's with it:
    do_bench's defaults (25 ms of warm-up, 100 ms of repetitions, its L2 flush), the median."""
    from triton.testing import do_bench

    return float(do_bench(call, warmup=25, rep=100, return_mode="median"))


INVENTORY_SEED_MIX = 0x3C6EF372FE94F82B  # the inventory's inputs: another draw of the workload


def inventory_seed(seed: int) -> int:
    """The seed of a workload's inventory inputs: another draw than the timed calls' inputs, so
    a call that keeps work or results across calls on the same inputs (keyed by the tensors'
    identity, address or contents) does its full work there, and kbx's stream check compares the
    timed calls against that work (judge.cpp, `fresh_calls`)."""
    return (int(seed) ^ INVENTORY_SEED_MIX) & 0x7FFF_FFFF_FFFF_FFFF


def _inventory_one(entry: Callable, builders: Any, workload: dict, settings: Settings,
                   flush_buffer, recorder: Any, count: int) -> dict:
    try:
        call = _call_of(entry, builders, dict(workload, seed=inventory_seed(workload["seed"])))
        extra: dict = {}
        inventory_calls(call, flush_buffer if settings.flush_l2 else None, recorder, extra, count)
    except BaseException as e:  # noqa: BLE001 - the workload's failure is its result
        return _failed(workload, e)
    return {"status": "ok", "extra": extra}


SPIN_UP_CYCLES = 1_000_000   # one clock reading: a sleep of this many GPU cycles
SPIN_UP_STEADY = 0.02        # readings that agree this closely ...
SPIN_UP_READINGS = 3         # ... this many times running: the clock is steady


def spin_up(buffer, ms: float) -> None:
    """Keeps the GPU busy until its clock is steady, at most about `ms`, so that its clocks have left
    idle before the first workload.

    An idle H200 sits at a few hundred MHz; without this, the first workload of a request (often
    the smallest) is timed partly at low clocks. Each step zeroes the flush buffer twice (load) and
    reads the clock: the events' time for a sleep of SPIN_UP_CYCLES. When SPIN_UP_READINGS readings
    in a row agree within SPIN_UP_STEADY, the clock has settled (a GPU that was busy a moment ago
    settles in the first three steps, about 2 ms, instead of the whole `ms`).
    """
    if buffer is None or ms <= 0:
        return
    begin = _perf_counter()
    readings: list[float] = []
    while (_perf_counter() - begin) * 1e3 < ms:
        for _ in range(2):
            _zero(buffer)
        if _sleep is None:
            _synchronize()
            continue
        reading = _timed_sleep_ms(SPIN_UP_CYCLES)
        readings.append(reading if reading > 0 else math.nan)
        last = readings[-SPIN_UP_READINGS:]
        if (len(last) == SPIN_UP_READINGS and all(math.isfinite(x) for x in last)
                and max(last) <= min(last) * (1 + SPIN_UP_STEADY)):
            return


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


BATCH = 32            # samples enqueued behind one head start
HEAD_START_MIN_MS = 0.1
HEAD_START_MAX_MS = 20.0
HEAD_START_MARGIN = 2.0   # head start = margin x what the host would otherwise lag the GPU by
CYCLES_PER_MS_MIN = 2e5
CYCLES_PER_MS_MAX = 4e6
BLOCK_PROBE_MS = 1.0      # the GPU sleep a call is launched behind to see whether it waits for it
BLOCK_PROBE_MAX_MS = 8.0  # ... longer for a slow launch (4x it), never longer than this
# Rounds that replace samples the GPU may have waited in: the GPU had reached the sample's start
# event before the host finished enqueueing its call (a host slower than its estimate: a worker
# that idled for seconds launches several times slower for its first tens of milliseconds).
RETAKE_ROUNDS = 2
# Samples taken without a head start (calls that block the host, or launch for longer than any
# head start covers) include the host's share, and the host can slow down 10x for tens of
# milliseconds and recover gradually (session 31 on an H100: masked_select's 66 us samples went
# to 0.7-1.0 ms for 18 samples, then fell back over 60 more). They are read in segments of
# STEADY_SEGMENT; a segment whose median is over STEADY_FACTOR times the fastest segment's is
# taken again after a pause, at most len(STEADY_PAUSES_S) times.
STEADY_SEGMENT = 16
STEADY_FACTOR = 1.25
STEADY_PAUSES_S = (0.02, 0.1)
FLUSH_MS_MAX = 5.0
_cycles_per_ms: list[float] = []
_flush_ms: list[float] = []


def _gpu_cycles_per_ms() -> float | None:
    """GPU cycles per ms of the sleep kernel, measured once per process (None without it)."""
    if _sleep is None:
        return None
    if not _cycles_per_ms:
        _synchronize()
        begin = _perf_counter()
        ms = _timed_sleep_ms(2_000_000)
        host_ms = (_perf_counter() - begin) * 1e3
        if not (ms > 0.5 * host_ms):  # events that disagree with the host's clock (NaN included)
            ms = host_ms
        # A GPU clock between 0.2 and 4 GHz, whatever the events said: a submission that replaced
        # the timer must not turn the head start into a sleep of minutes.
        _cycles_per_ms.append(min(CYCLES_PER_MS_MAX, max(CYCLES_PER_MS_MIN, 2_000_000 / max(ms, 1e-6))))
    return _cycles_per_ms[0]


CLOCK_CYCLES = 200_000  # about 0.1 ms of the sleep kernel at a boost clock


def gpu_clock_mhz() -> float | None:
    """The GPU's SM clock now (MHz): events around a sleep of CLOCK_CYCLES cycles; None without
    the sleep kernel or a usable reading. Informative: every workload's result carries it, so a run
    can tell a request timed at a lower clock from one timed with other noise."""
    if _sleep is None:
        return None
    ms = _timed_sleep_ms(CLOCK_CYCLES)
    if not (ms > 0) or not math.isfinite(ms):
        return None
    return CLOCK_CYCLES / ms / 1e3


def _timed_sleep_ms(cycles: int) -> float:
    """The events' time (ms) for a sleep kernel of `cycles` GPU cycles, synchronised: the clock's
    reading in spin_up(), _gpu_cycles_per_ms() and gpu_clock_mhz()."""
    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
    _record(start)
    _sleep(cycles)
    _record(end)
    _synchronize()
    return float(_elapsed_time(start, end))


def _flush_gpu_ms(flush_buffer) -> float:
    """The GPU's time for one L2 flush (ms), measured once per request; 0 without a buffer."""
    if flush_buffer is None:
        return 0.0
    if not _flush_ms:
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _record(start)
        for _ in range(4):
            _zero(flush_buffer)
        _record(end)
        _synchronize()
        ms = float(_elapsed_time(start, end)) / 4
        _flush_ms.append(min(FLUSH_MS_MAX, ms) if ms > 0 else 0.0)  # NaN and forgeries: 0
    return _flush_ms[0]


def blocks_host(call: Callable[[], Any], launch_ms: float) -> bool:
    """Whether `call` waits for the GPU before it returns (a solve checking its info, .item(), a
    masked_select sizing its output): launched behind a GPU sleep, such a call returns only after
    the sleep, while one that merely enqueues work returns in its usual launch time. Each probe is
    paired with a plain call just before it (the host's pace now, not the warm-up's fastest: a host
    slowed for a while must not make every launch look like a wait), and its sleep is
    BLOCK_PROBE_MS or four times that plain call, at most BLOCK_PROBE_MAX_MS. Asked twice, both
    must agree. A head start cannot help a call that blocks: the call waits for it, and the sleep,
    sized for a batch, is spent once per sample."""
    cycles = _gpu_cycles_per_ms()
    if cycles is None or not math.isfinite(launch_ms):
        return False
    for _ in range(2):
        _synchronize()
        begin = _perf_counter()
        call()
        plain_ms = (_perf_counter() - begin) * 1e3
        _synchronize()
        probe_ms = min(BLOCK_PROBE_MAX_MS, max(BLOCK_PROBE_MS, 4 * plain_ms))
        _sleep(int(cycles * probe_ms))
        begin = _perf_counter()
        call()
        host_ms = (_perf_counter() - begin) * 1e3
        _synchronize()
        if host_ms < plain_ms + 0.5 * probe_ms:
            return False
    return True


def sample(call: Callable[[], Any], settings: Settings, flush_buffer,
           extra: dict | None = None, spread: Any = None) -> tuple[list[float], int]:
    """Warms `call` up, then times it with events; returns (samples in ms, warm-up calls), and puts
    the host's median time to enqueue one sample (flush, events and the call) in extra["host_ms"]
    and why sampling stopped in extra["sampling"].

    With `spread` (host_cpus.SpreadCpus), each sample taken without a head start (its time holds
    the host's share) first moves the thread to the next CPU; the thread gets its CPUs back before
    this returns.

    With `head_start`, each batch of samples is enqueued behind a GPU sleep kernel long enough for
    the host to enqueue the whole batch, so the GPU runs flush, start event, call, end event
    back to back: the events measure the device's time, not how fast this process's host thread
    launched (which varies with CPU load from other workers and made short workloads noisy). A call
    that synchronises the host (solve, .item()) drains the queue; its samples then include the
    host's share, as without a head start.

    The first round takes the planned count (plan_samples). With `ci_target`, further rounds follow
    while the median's 95% confidence interval is wider than ci_target of it: each round asks for
    the count the interval's width predicts (width shrinks as 1/sqrt(n)), within what is left of
    ci_budget_ms and ci_max_samples; once the target would need over CI_OUT_OF_REACH times the
    samples the budget has left, no further round is taken. extra["sampling"]: "ci" (interval
    reached), "budget" (spent, or out of its reach), "max_samples", or "plan" (no target)."""
    begin = _perf_counter()
    warm = _warm_up(call, settings, probe=settings.head_start)
    warmup_calls, best_ms, best_launch_ms = warm.calls, warm.best_ms, warm.best_launch_ms
    probed = warm.blocking is not None
    blocking = bool(warm.blocking)
    # A call whose launch alone takes longer than the longest head start covers (with its margin)
    # cannot be covered: head starts would hide a varying part of it from sample to sample (the
    # GPU catching up with the host mid-call), so it is timed as it runs, the host's share in.
    host_bound = (settings.head_start and not blocking and math.isfinite(best_launch_ms)
                  and HEAD_START_MARGIN * best_launch_ms > HEAD_START_MAX_MS)
    warmup_ms = (_perf_counter() - begin) * 1e3
    batches = _Batches(settings, best_ms, best_launch_ms, flush_buffer,
                       head_start=not (blocking or host_bound), spread=spread)
    if not probed:
        # A call that waits for the GPU after launching most of its work (a domain check's
        # .item(), then the kernels: the wait is short against the work) is not probed above; the
        # first time the GPU catches up with it behind a head start, it is.
        batches.probe = lambda: blocks_host(call, best_launch_ms)
    begin = _perf_counter()
    unsteady = [0]  # samples steady() took again

    def take(count: int) -> list[float]:
        return batches.take(call, flush_buffer, count)

    steady_gpu = not (blocking or host_bound)
    samples = take(plan_samples(settings, best_ms, steady_gpu=steady_gpu))
    if batches.cycles is None:  # no head start: the samples hold the host's share
        samples = steady(samples, take, unsteady)
    ci_budget_ms = sampling_budget_ms(settings, best_ms, steady_gpu)
    stop = "plan"
    while settings.ci_target > 0:
        rel = median_ci_rel(samples)
        spent_ms = (_perf_counter() - begin) * 1e3
        if rel <= settings.ci_target:
            stop = "ci"
        elif len(samples) >= settings.ci_max_samples:
            stop = "max_samples"
        elif spent_ms >= ci_budget_ms:
            stop = "budget"
        else:
            n = len(samples)
            wanted = math.ceil(n * (rel / settings.ci_target) ** 2 * 1.1) - n if math.isfinite(rel) else n
            per_sample_ms = max(spent_ms / n, 1e-6)
            affordable = int((ci_budget_ms - spent_ms) / per_sample_ms) + 1
            if math.isfinite(rel) and wanted > CI_OUT_OF_REACH * affordable:
                # Even the whole budget would leave the interval over twice the target (its width
                # shrinks as 1/sqrt(n)): more rounds would spend the budget on a noisy workload
                # and barely narrow it.
                stop = "budget"
                break
            more = min(max(wanted, BATCH), affordable, settings.ci_max_samples - n)
            batches.gpu_per_sample_ms = _median(samples) + batches.flush_ms
            samples += take(max(1, more))
            if batches.cycles is None:  # the new round's segments against the earlier ones
                samples = steady(samples, take, unsteady)
            continue
        break
    if spread is not None:
        spread.settle()  # the brackets and the next warm-up run wherever the system puts them
    if extra is not None:
        # The median: a stall of the host (a collection, the scheduler) lengthens a few samples'
        # enqueue by milliseconds, and a mean of them said 12-149 ms for calls of 0.2 ms.
        extra["host_ms"] = _median(batches.host_samples_ms)
        extra["sampling"] = stop
        extra["warmup_ms"] = warmup_ms
        if batches.waited_samples:
            extra["waited_samples"] = batches.waited_samples
        if unsteady[0]:
            extra["unsteady_samples"] = unsteady[0]
        if blocking or batches.found_blocking:
            extra["blocks_host"] = True
        if host_bound:
            extra["host_bound"] = True
    return samples, warmup_calls


def steady(samples: list[float], take: Callable[[int], list[float]], dropped: list[int]
           ) -> list[float]:
    """`samples` (in the order taken) with each STEADY_SEGMENT-long run whose median is over
    STEADY_FACTOR times the fastest such run's taken again (`take(n)`) after a pause, up to
    len(STEADY_PAUSES_S) times; dropped[0] counts the samples replaced. A short last run (under
    half a segment) is neither judged nor a yardstick. A call that is slow throughout, or slow
    again when retaken, keeps its slow samples: only a slowdown that passes is taken out."""
    for pause in STEADY_PAUSES_S:
        runs = [samples[i:i + STEADY_SEGMENT] for i in range(0, len(samples), STEADY_SEGMENT)]
        judged = [r for r in runs if 2 * len(r) >= STEADY_SEGMENT]
        if len(judged) < 2:
            return samples
        bar = STEADY_FACTOR * min(_median(r) for r in judged)
        slow = [2 * len(r) >= STEADY_SEGMENT and _median(r) > bar for r in runs]
        if not any(slow):
            return samples
        kept = [x for r, s in zip(runs, slow) if not s for x in r]
        count = len(samples) - len(kept)
        dropped[0] += count
        _host_pause(pause)
        samples = kept + take(count)
    return samples


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    return ys[len(ys) // 2] if ys else 0.0


class _Batches:
    """Enqueues samples in batches behind head starts; keeps the host's pace, the GPU's time per
    sample and the margin between rounds of one workload.

    A batch of n samples runs back to back on the GPU when the sleep ahead of it lasts at least
    n x (h - g) + min(h, g), h the host's time to enqueue a sample and g the GPU's time for one
    (flush and call): the GPU falls behind by h - g per sample while the host is slower, and never
    waits once it is faster. The sleep is that, times the margin, within HEAD_START_MIN_MS and
    HEAD_START_MAX_MS. g starts from the warm-up (the GPU's time left once the call returned: a
    lower bound, so the first round errs long) and then is the last round's median plus the flush.
    If the GPU has begun any sample of a batch by the time the host has enqueued it, the GPU may
    have waited for the host: that sample is taken again (take) and the margin doubles, up to 4x
    its start.

    `spread` (host_cpus.SpreadCpus, or None): without a head start, each sample first moves the
    thread to the next CPU (outside the events: the move is done before the flush is enqueued)."""

    def __init__(self, settings: Settings, best_ms: float, best_launch_ms: float, flush_buffer,
                 head_start: bool = True, spread: Any = None):
        self.cycles = _gpu_cycles_per_ms() if settings.head_start and head_start else None
        # The first batch's guess (the warm-up's fastest launch, plus the flush and the events);
        # then what the host took per sample.
        self.host_per_sample_ms = (best_launch_ms if math.isfinite(best_launch_ms) else 0.2) + 0.02
        self.flush_ms = _flush_gpu_ms(flush_buffer) if self.cycles is not None else 0.0
        gpu_tail = best_ms - best_launch_ms
        self.gpu_per_sample_ms = (max(0.0, gpu_tail) if math.isfinite(gpu_tail) else 0.0) + self.flush_ms
        self.host_samples_ms: list[float] = []  # the host's time to enqueue each sample
        self.margin = HEAD_START_MARGIN
        self.waited_samples = 0  # samples dropped because the GPU may have waited in them
        # blocks_host for this call, asked the first time the GPU catches up (sample() sets it
        # where its own probe did not run); found_blocking: it said yes.
        self.probe: Callable[[], bool] | None = None
        self.found_blocking = False
        self.spread = spread

    def head_start_ms(self, size: int) -> float:
        h, g = self.host_per_sample_ms, max(0.0, self.gpu_per_sample_ms)
        wanted = self.margin * (size * max(0.0, h - g) + min(h, g))
        return min(HEAD_START_MAX_MS, max(HEAD_START_MIN_MS, wanted))

    def take(self, call: Callable[[], Any], flush_buffer, count: int) -> list[float]:
        """Takes `count` samples. Behind head starts, a sample the GPU may have waited in (it had
        reached the sample's start event before the host finished enqueueing the call: the
        events then hold part of the host's launch) is dropped and taken again, up to
        RETAKE_ROUNDS more rounds, each with the longer head start the drop asked for; what the
        last round could not replace is filled with its dropped samples (they err long).
        self.waited_samples counts the drops. The first drop asks self.probe (when set) whether
        the call waits for the GPU: then the head starts stop and the round is taken without."""
        kept: list[float] = []
        for _ in range(1 + RETAKE_ROUNDS):
            samples, waited = self._enqueue(call, flush_buffer, count - len(kept))
            if any(waited) and self.cycles is not None and self.probe is not None:
                probe, self.probe = self.probe, None
                if probe():
                    # The call waits for the GPU, so for every head start: none from now on, and
                    # the round is taken again without (its samples each waited out a sleep).
                    self.cycles, self.found_blocking = None, True
                    return kept + self._enqueue(call, flush_buffer, count - len(kept))[0]
            kept += [x for x, w in zip(samples, waited) if not w]
            dropped = [x for x, w in zip(samples, waited) if w]
            self.waited_samples += len(dropped)
            if len(kept) >= count:
                break
        return kept + dropped[:count - len(kept)]

    def _enqueue(self, call: Callable[[], Any], flush_buffer, count: int
                 ) -> tuple[list[float], list[bool]]:
        """`count` samples, read after one synchronisation at the end, and for each whether the
        GPU may have waited for the host inside it (only behind head starts)."""
        events = [(_Event(enable_timing=True), _Event(enable_timing=True)) for _ in range(count)]
        waited = [False] * count
        # When the GPU is expected to finish what is enqueued (host clock, ms); idle now, since
        # every round ends with a synchronisation. A batch's head start is what that backlog does
        # not already cover, so the margin of one batch carries over to the next instead of being
        # slept again: on host-bound calls a round took about twice the host's time.
        gpu_free_ms = _perf_counter() * 1e3
        done = 0
        while done < count:
            # As many samples as the longest head start covers, so the GPU never catches up with a
            # host that launches slowly (many small PyTorch calls per sample).
            lag = self.margin * max(self.host_per_sample_ms - max(0.0, self.gpu_per_sample_ms), 1e-3)
            size = max(1, min(BATCH, int(HEAD_START_MAX_MS / lag), count - done))
            batch = events[done:done + size]
            if self.cycles is not None:
                now_ms = _perf_counter() * 1e3
                head_ms = self.head_start_ms(len(batch)) - max(0.0, gpu_free_ms - now_ms)
                head_ms = max(HEAD_START_MIN_MS, head_ms) if head_ms > 0 else 0.0
                if head_ms > 0:
                    _sleep(int(self.cycles * head_ms))
                gpu_free_ms = (max(gpu_free_ms, now_ms) + head_ms
                               + len(batch) * max(0.0, self.gpu_per_sample_ms))
            begin = _perf_counter()
            spread = self.spread if self.cycles is None else None
            for i, (start, end) in enumerate(batch):
                if spread is not None:
                    spread.step()
                enqueue = _perf_counter()
                _flush(flush_buffer, None)
                _record(start)
                call()
                _record(end)
                if self.cycles is not None and _query(start):
                    # The GPU had passed the start event before the call was enqueued in full.
                    waited[done + i] = True
                self.host_samples_ms.append((_perf_counter() - enqueue) * 1e3)
            if any(waited[done:done + size]):
                # The GPU caught up with the host within the batch: a longer head start from now on.
                self.margin = min(4 * HEAD_START_MARGIN, 2 * self.margin)
            self.host_per_sample_ms = (_perf_counter() - begin) * 1e3 / len(batch)
            done += len(batch)
        _synchronize()
        return [float(_elapsed_time(start, end)) for start, end in events], waited


BRACKET_SAMPLES = 3
# More rounds of brackets when the first disagree with the events, each after a longer pause: the
# host can be held up for 20-100 ms at a stretch (session 30 on an H100: five honest workloads of
# 4,400 stayed slow through three rounds 2 ms apart, their samples slowed as much, while the GPU's
# kernel records agreed with the events), and work that escaped the events' stream stays slow
# however long the pause. At most 0.4 s more, only for a workload whose brackets disagree.
BRACKET_RETRY_PAUSES_S = (0.002, 0.02, 0.1, 0.25)
BRACKET_RETRIES = len(BRACKET_RETRY_PAUSES_S)
_host_pause = time.sleep
INVENTORY_CALLS = 3
REFERENCE_INVENTORY_CALLS = 1
LONG_CALL_MS = 10.0  # calls longer than this get one bracket a round and one inventory call
WINDOW_SLACK_NS = 20_000  # an inventory call's window on CUPTI's clock, widened by this each side


def bracket_samples(call: Callable[[], Any], flush_buffer, count: int = BRACKET_SAMPLES
                    ) -> list[float]:
    """Wall times of `call` between two device-wide synchronisations (ms), L2 flushed first.

    Events time one stream; these cover all work the call caused, on any stream or thread. kbx
    compares the two and times by these when the work escaped the events' stream.
    """
    out = []
    for _ in range(count):
        _flush(flush_buffer, None)
        _synchronize()
        start = _perf_counter()
        call()
        _synchronize()
        out.append((_perf_counter() - start) * 1e3)
    return out


def brackets_disagree(brackets: list[float], samples: list[float], host_ms: float | None) -> bool:
    """Whether kbx's stream check (run/judge.cpp apply_stream_check) would say the work escaped
    the events' stream: the fastest bracket longer than twice what the events or the host account
    for, plus 50 us. kbx takes the fastest bracket, and a busy host (compiles beside the timing, a
    collection) can hold up a few brackets in a row, so the worker takes more rounds before it lets
    one stand: a call whose work really escapes stays slow in every round."""
    if not brackets or not samples:
        return False
    return min(brackets) > 2.0 * max(_median(samples), host_ms or 0.0) + 0.05


def inventory_calls(call: Callable[[], Any], flush_buffer, recorder: Any, extra: dict,
                    count: int = INVENTORY_CALLS) -> None:
    """Calls `call` `count` times with CUPTI recording, each between two device-wide
    synchronisations (L2 flushed first, the flush tagged as the harness's), and puts into `extra`:
    the kernels they ran (`kernels`, over `kernel_calls` calls), the GPU's busy time per call
    (`kernel_busy_ms`: the union of the kernels' intervals), and per call its wall time
    (`inventory_ms`), its kernels' span, first start to last end (`inventory_kernel_ms`), and its
    busy time (`inventory_busy_ms`);
    with a flush buffer, the GPU time of each L2 flush the harness ran before a call
    (`inventory_flush_ms`, from the kernels it tagged as its own).

    The records are read once, after the last call: CUPTI's clock, read after each call's first
    synchronisation and after its second, tells the calls' kernels apart (a kernel starts after
    its call's first synchronisation and before the second returns), with WINDOW_SLACK_NS on
    either side for the clock's conversion. A kernel in no call's window (another thread's
    launch between calls) is no call's, as when each call's records were cleared before it and
    read after it. Reading once saves CUPTI's forced deliveries, about 2 ms a workload (session
    34, an H100: 2.6-2.8 ms against 0.66-0.85 ms for three calls). Without CUPTI's clock (a
    recorder that reads 0), each call's records are read after it."""
    walls: list[float] = []
    windows: list[tuple[int, int]] = []
    per_call: list[list] = []
    flushes: list = []  # the harness's kernels: the L2 flush before each call
    _synchronize()
    recorder.clear()
    one_read = recorder.timestamp() > 0
    for _ in range(count):
        _flush(flush_buffer, recorder)
        _synchronize()
        if not one_read:
            if flush_buffer is not None:
                flushes += [r for r in recorder.records() if r[4] == inventory.HARNESS]
            recorder.clear()
        t0 = recorder.timestamp()
        start = _perf_counter()
        call()
        _synchronize()
        walls.append((_perf_counter() - start) * 1e3)
        if one_read:
            windows.append((t0, recorder.timestamp()))
        else:
            per_call.append([r for r in recorder.records() if r[4] != inventory.HARNESS])
    if one_read:
        everything = recorder.records()
        flushes = [r for r in everything if r[4] == inventory.HARNESS]
        records = [r for r in everything if r[4] != inventory.HARNESS]
        per_call = [[] for _ in windows]
        for r in records:
            for i, (t0, t1) in enumerate(windows):
                if t0 - WINDOW_SLACK_NS <= r[1] <= t1 + WINDOW_SLACK_NS:
                    per_call[i].append(r)
                    break
    kept = [r for rs in per_call for r in rs]
    spans = [(max(r[2] for r in rs) - min(r[1] for r in rs)) / 1e6 if rs else 0.0
             for rs in per_call]
    extra["kernels"] = inventory.summarize(kept)
    extra["kernel_calls"] = count
    extra["kernel_busy_ms"] = inventory.busy_ns(kept) / 1e6 / count
    extra["inventory_ms"] = walls
    extra["inventory_kernel_ms"] = spans
    # Each call's own busy time: the calls share one draw, so a call that keeps work across calls
    # on the same inputs does it in the first only, and kbx compares the timed calls with the
    # busiest (judge.cpp apply_stream_check), not with the mean that the later calls lower.
    extra["inventory_busy_ms"] = [inventory.busy_ns(rs) / 1e6 for rs in per_call]
    if flush_buffer is not None:
        # Each flush's GPU time, in the order they ran: kbx checks that one ran before every call
        # and that it took at least what writing the device's L2 can take (judge.h).
        flushes.sort(key=lambda r: r[1])
        extra["inventory_flush_ms"] = [(r[2] - r[1]) / 1e6 for r in flushes]


class WarmUp(NamedTuple):
    calls: int
    best_ms: float         # the fastest synchronised call's wall time
    best_launch_ms: float  # the fastest launch (until the call returned)
    blocking: bool | None  # blocks_host's answer; None: not probed


def _probe_wanted(best_ms: float, best_launch_ms: float) -> bool:
    """Only a call whose launch took most of its wall time can be waiting for the GPU (a blocking
    call returns once the GPU is done); a GPU-bound call, or one too long for any head start, is
    never probed."""
    return best_ms < HEAD_START_MAX_MS and best_launch_ms > 0.5 * best_ms


def _warm_up(call: Callable[[], Any], settings: Settings, probe: bool = False) -> WarmUp:
    """Calls until both warmup_min_calls and warmup_ms are reached; returns the calls, the fastest
    call's and launch's times, and (with `probe`) whether the call blocks the host.

    Each call is synchronised, so the fastest call's wall time bounds its device time; the launch
    time (until the call returns, before the synchronisation) is the host's share.

    One call is enough, whatever warmup_min_calls asks, when it took LONG_CALL_MS or more and its
    launch under half of that, once warmup_ms has passed: the GPU's own time, not a compile's or
    the host's, and the samples of such a call follow on a GPU already at its clocks (session 35:
    74 workloads of the suite, 2.6 s a run).

    With `probe`, the blocking probe (blocks_host) runs as soon as warmup_min_calls are done and
    the calls so far want it (_probe_wanted), and its time counts towards warmup_ms: its two calls
    warm up as the others do, and a short call no longer spends warmup_ms and then the probe's
    sleep on top (session 39's suite on an H100: 1,438 of 2,232 workloads probed, about 1.2 ms
    each after a 2 ms warm-up). The question is asked after every call from then on, so a call
    that wants the probe only once later calls changed its fastest times is probed then; the one
    way out of the loop before that question (a single long call) is a call it never wants.
    """
    calls, best_ms, best_launch_ms = 0, math.inf, math.inf
    blocking: bool | None = None
    begin = _perf_counter()
    while calls < settings.warmup_min_calls or (_perf_counter() - begin) * 1e3 < settings.warmup_ms:
        start = _perf_counter()
        call()
        launched = _perf_counter()
        _synchronize()
        wall_ms, launch_ms = (_perf_counter() - start) * 1e3, (launched - start) * 1e3
        best_ms = min(best_ms, wall_ms)
        best_launch_ms = min(best_launch_ms, launch_ms)
        calls += 1
        if (calls == 1 and wall_ms >= LONG_CALL_MS and launch_ms < 0.5 * wall_ms
                and (_perf_counter() - begin) * 1e3 >= settings.warmup_ms):
            break
        if (probe and blocking is None and calls >= settings.warmup_min_calls
                and _probe_wanted(best_ms, best_launch_ms)):
            blocking = blocks_host(call, best_launch_ms)
    return WarmUp(calls, best_ms, best_launch_ms, blocking)


LONG_ROUND_MS = 50.0        # a first round of min_samples longer than this is cut ...
LONG_CALL_MIN_SAMPLES = 5   # ... to what fills LONG_ROUND_MS, but never below this many


SHORT_CALL_MS = 0.02  # calls shorter than this (fastest warm-up call) get short_call_budget_ms


def sampling_budget_ms(settings: Settings, per_call_ms: float, steady_gpu: bool = True) -> float:
    """The adaptive rounds' wall-time budget: settings.short_call_budget_ms for a `steady_gpu`
    call faster than SHORT_CALL_MS when it is set (not 0), else settings.ci_budget_ms."""
    if (settings.short_call_budget_ms > 0 and steady_gpu and math.isfinite(per_call_ms)
            and per_call_ms < SHORT_CALL_MS):
        return settings.short_call_budget_ms
    return settings.ci_budget_ms


def plan_samples(settings: Settings, per_call_ms: float, steady_gpu: bool = True) -> int:
    """Samples to take: enough to fill budget_ms at `per_call_ms` each, within [min, max]; calls
    so long that min_samples of them exceed LONG_ROUND_MS take what fills it, at least
    settings.long_call_samples (a 10 ms call: 5 samples by default, not 10 — long calls are
    GPU-bound and steady, and the adaptive rounds still follow within ci_budget_ms), or at least
    LONG_CALL_MIN_SAMPLES where the call is not `steady_gpu` (it waits for the host, or its
    launch outlasts a head start)."""
    if per_call_ms <= 0:
        wanted = settings.max_samples
    elif math.isinf(per_call_ms):
        wanted = settings.min_samples
    else:
        wanted = math.ceil(settings.budget_ms / per_call_ms)
    n = max(1, min(settings.max_samples, max(settings.min_samples, wanted)))
    if math.isfinite(per_call_ms) and per_call_ms * n > LONG_ROUND_MS:
        least = settings.long_call_samples if steady_gpu else LONG_CALL_MIN_SAMPLES
        n = min(n, max(least, math.ceil(LONG_ROUND_MS / per_call_ms)))
    return n
