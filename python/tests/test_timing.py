"""Timing: settings checks, the sample plan, and refusing to time without CUDA."""

from __future__ import annotations

import pytest
import torch

from kbx_worker import inventory, timing
from kbx_worker.errors import WorkerError


def test_missing_settings_take_the_defaults():
    settings = timing.Settings.from_request({"budget_ms": 5, "flush_l2": False})
    assert settings.budget_ms == 5.0 and settings.flush_l2 is False
    assert settings.min_samples == 10 and settings.max_samples == 100


def test_do_bench_is_off_unless_asked_and_must_be_a_boolean():
    assert timing.Settings.from_request({}).do_bench is False
    assert timing.Settings.from_request({"do_bench": True}).do_bench is True
    with pytest.raises(WorkerError):
        timing.Settings.from_request({"do_bench": 1})


@pytest.mark.parametrize("raw", [
    [], {"min_samples": -1}, {"max_samples": 2.5}, {"flush_l2": 1}, {"budget_ms": "5"},
    {"min_samples": 20, "max_samples": 10}, {"max_samples": 0, "min_samples": 0},
    {"warmup_ms": True},
])
def test_bad_settings_are_protocol_errors(raw):
    with pytest.raises(WorkerError) as e:
        timing.Settings.from_request(raw)
    assert e.value.kind == "protocol_error"


@pytest.mark.parametrize("per_call_ms, expected", [
    (1.0, 40), (0.001, 100), (100.0, 5), (15.0, 5), (10.0, 5), (4.0, 10), (6.0, 9), (500.0, 5),
    (float("inf"), 10), (0.0, 100)])
def test_sample_plan_fills_the_budget_within_bounds(per_call_ms, expected):
    settings = timing.Settings(min_samples=10, max_samples=100, budget_ms=40)
    assert timing.plan_samples(settings, per_call_ms) == expected


@pytest.mark.parametrize("per_call_ms, steady, expected", [
    (15.0, True, 4), (40.0, True, 3), (500.0, True, 3), (15.0, False, 5), (500.0, False, 5),
    (4.0, True, 10), (6.0, True, 9)])
def test_long_steady_calls_take_long_call_samples(per_call_ms, steady, expected):
    # `kbx eval --long-call-samples 3`: a GPU-bound call too long for min_samples in a 50 ms round
    # takes what fills the round, at least 3; a call whose samples hold the host's share keeps 5.
    settings = timing.Settings(min_samples=10, max_samples=100, budget_ms=40, long_call_samples=3)
    assert timing.plan_samples(settings, per_call_ms, steady_gpu=steady) == expected


@pytest.mark.parametrize("value", [0, 6, 2.5])
def test_long_call_samples_out_of_range_is_a_protocol_error(value):
    with pytest.raises(WorkerError) as e:
        timing.Settings.from_request({"long_call_samples": value})
    assert e.value.kind == "protocol_error"
    assert timing.Settings.from_request({"long_call_samples": 3}).long_call_samples == 3
    assert timing.Settings.from_request({}).long_call_samples == timing.LONG_CALL_MIN_SAMPLES


def test_cpu_workloads_are_refused_one_by_one():
    workloads = [{"index": 3, "seed": 1, "args": [], "kwargs": {}},
                 {"index": 4, "seed": 2, "args": [], "kwargs": {}}]
    results, faulted = timing.time_workloads(lambda: None, None, "cpu", workloads,
                                             timing.Settings(), None)
    assert not faulted
    assert [r["index"] for r in results] == [3, 4]
    assert all(r["status"] == "error" for r in results)
    assert results[0]["error"]["message"] == "timing needs a CUDA device"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_sampling_returns_positive_samples():
    flush = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
    x = torch.randn(1 << 20, device="cuda")
    settings = timing.Settings(warmup_ms=1, warmup_min_calls=2, min_samples=5, max_samples=20,
                               budget_ms=1)
    samples, warmup_calls = timing.sample(lambda: x * 2, settings, flush)
    assert warmup_calls >= 2 and 5 <= len(samples) <= 20
    assert all(s > 0 for s in samples)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_graph_mode_times_replays_of_a_short_call():
    flush = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
    x = torch.randn(1024, device="cuda")
    settings = timing.Settings(warmup_ms=1, min_samples=5, max_samples=20, budget_ms=1,
                               graph=True, graph_max_ms=1e9)
    result = {}
    assert not timing.time_graph(lambda: x * 2, settings, flush, result)
    assert "graph_error" not in result, result.get("graph_error")
    assert result["graph_samples_ms"] and all(s > 0 for s in result["graph_samples_ms"])


@pytest.mark.parametrize("events_ms, host_ms, expected", [
    (1.0, 1.01, 2e6),        # honest: the events' reading
    (1e-6, 1.0, 2e6),        # a forged timer reading 1 ns: the host's clock instead
    (float("nan"), 1.0, 2e6),
    (1e-6, 1e-6, 4e6),       # both forged: the fastest plausible GPU clock
    (1e4, 1e4, 2e5),         # absurdly slow: the slowest plausible one
])
def test_head_start_calibration_stays_plausible(monkeypatch, events_ms, host_ms, expected):
    clock = iter([0.0, host_ms / 1e3])

    class _FakeEvent:
        def __init__(self, **_):
            pass

    monkeypatch.setattr(timing, "_sleep", lambda cycles: None)
    monkeypatch.setattr(timing, "_Event", _FakeEvent)
    monkeypatch.setattr(timing, "_record", lambda e: None)
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    monkeypatch.setattr(timing, "_perf_counter", lambda: next(clock))
    monkeypatch.setattr(timing, "_elapsed_time", lambda a, b: events_ms)
    monkeypatch.setattr(timing, "_cycles_per_ms", [])
    assert timing._gpu_cycles_per_ms() == pytest.approx(expected)


@pytest.mark.parametrize("launch_ms", [0.01, 0.3, 2.0, 30.0])
def test_head_starts_cover_the_host_once_not_batch_after_batch(monkeypatch, launch_ms):
    """Calls that take the host launch_ms to enqueue and the GPU 0.005 ms: the GPU never waits
    for the host inside a sample, and over a round it sleeps about as long as the host lags, not
    the margin times that for every batch (the margin of one batch carries over to the next)."""
    call, sleeps = _gpu_with_a_queue(monkeypatch, lambda i: launch_ms, gpu_ms=0.005)
    settings = timing.Settings(warmup_ms=0, warmup_min_calls=2, min_samples=10, max_samples=100,
                               budget_ms=60, ci_target=0)
    extra = {}
    samples, _ = timing.sample(call, settings, None, extra)
    if timing.HEAD_START_MARGIN * launch_ms > timing.HEAD_START_MAX_MS:
        # No head start covers the launch: none is given (timed as it runs).
        assert extra.get("host_bound") is True and not sleeps  # (too long to be probed)
        return
    assert "waited_samples" not in extra and "blocks_host" not in extra
    assert all(x == pytest.approx(0.005) for x in samples)  # the GPU's time alone
    heads = sleeps[1:]  # after the blocking probe's sleep
    host_ms = len(samples) * launch_ms
    # The host's time, plus the first batch's margin (at most the longest head start). Before,
    # each batch slept twice its own lag: about twice the host's time over the round.
    assert sum(heads) <= host_ms + timing.HEAD_START_MAX_MS


def test_median_interval_matches_the_order_statistics():
    assert timing.median_ci_rel([1.0] * 5) == float("inf")  # too few samples
    assert timing.median_ci_rel([0.0] * 10) == float("inf")  # no positive median
    samples = [float(v) for v in range(1, 101)]  # median 50.5; ranks 40 and 60 (0-based)
    assert timing.median_ci_rel(samples) == pytest.approx((61 - 41) / (2 * 50.5))
    assert timing.median_ci_rel([2.0] * 50) == 0.0


def test_adaptive_settings_are_checked():
    settings = timing.Settings.from_request({})
    assert settings.ci_target == 0.01 and settings.ci_budget_ms == 40.0
    assert settings.ci_max_samples == 2000
    for raw in [{"ci_max_samples": 50}, {"ci_max_samples": 10**6}, {"ci_target": -1}]:
        with pytest.raises(WorkerError):
            timing.Settings.from_request(raw)
    # Without a target the cap may be below max_samples: it is not used.
    timing.Settings.from_request({"ci_target": 0, "ci_max_samples": 50})


def _fake_gpu(monkeypatch, durations):
    """A clock and events that make sample i last durations(i) ms of wall and event time."""
    now = [0.0]
    calls = [0]
    taken: list[float] = []

    class _FakeEvent:
        def __init__(self, **_):
            self.t = None

    def call():
        d = durations(calls[0])
        calls[0] += 1
        now[0] += d / 1e3
        taken.append(d)

    def record(event):
        event.t = len(taken)  # the sample it closes is taken[t - 1]

    monkeypatch.setattr(timing, "_Event", _FakeEvent)
    monkeypatch.setattr(timing, "_record", record)
    monkeypatch.setattr(timing, "_query", lambda event: False)
    monkeypatch.setattr(timing, "_sleep", lambda cycles: None)
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    monkeypatch.setattr(timing, "_perf_counter", lambda: now[0])
    monkeypatch.setattr(timing, "_elapsed_time", lambda a, b: taken[b.t - 1])
    monkeypatch.setattr(timing, "_cycles_per_ms", [2e6])
    return call


def _settings(**kw):
    base = dict(warmup_ms=0, warmup_min_calls=2, min_samples=10, max_samples=100, budget_ms=2)
    base.update(kw)
    return timing.Settings(**base)


def test_steady_samples_stop_after_the_plan(monkeypatch):
    call = _fake_gpu(monkeypatch, lambda i: 0.1)
    extra = {}
    samples, _ = timing.sample(call, _settings(), None, extra)
    assert len(samples) == 20 and extra["sampling"] == "ci"


def test_noisy_samples_take_more_rounds_until_the_interval_is_met(monkeypatch):
    import random
    rng = random.Random(7)
    call = _fake_gpu(monkeypatch, lambda i: 0.1 * (1 + 0.1 * rng.gauss(0, 1)))  # 10% spread
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_budget_ms=300), None, extra)
    assert extra["sampling"] == "ci"
    assert len(samples) > 100
    assert timing.median_ci_rel(samples) <= 0.01


def test_sampling_stops_at_the_budget_or_the_cap(monkeypatch):
    import random
    rng = random.Random(3)
    call = _fake_gpu(monkeypatch, lambda i: 1.0 * (1 + 0.5 * rng.random()))  # 1 ms, very noisy
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_budget_ms=50), None, extra)
    assert extra["sampling"] == "budget"
    assert len(samples) <= 60  # about 50 ms of 1-1.5 ms samples, plus the first round
    call = _fake_gpu(monkeypatch, lambda i: 0.01 * (1 + 0.5 * rng.random()))
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_max_samples=150), None, extra)
    assert extra["sampling"] == "max_samples" and len(samples) == 150


def test_short_calls_take_the_short_call_budget(monkeypatch):
    """`kbx eval --short-call-budget-ms 1.5`: a 10 us call spread by 10% needs about 600 samples
    for the 1% interval; under the short budget it stops after its planned 100, while a 30 us call
    (over SHORT_CALL_MS) and the same call without the option go on to the target."""
    import random
    rng = random.Random(5)

    def run(per_call_ms, **kw):
        call = _fake_gpu(monkeypatch, lambda i: per_call_ms * (1 + 0.1 * rng.gauss(0, 1)))
        extra = {}
        samples, _ = timing.sample(call, _settings(ci_budget_ms=300, **kw), None, extra)
        return len(samples), extra["sampling"]

    assert run(0.01, short_call_budget_ms=1.5) == (100, "budget")
    n, stop = run(0.01)
    assert stop == "ci" and n > 300
    n, stop = run(0.03, short_call_budget_ms=1.5)
    assert stop == "ci" and n > 300


def test_the_short_call_budget_applies_to_short_gpu_bound_calls_only():
    s = timing.Settings(ci_budget_ms=40, short_call_budget_ms=12)
    assert timing.sampling_budget_ms(s, 0.005) == 12
    assert timing.sampling_budget_ms(s, 0.005, steady_gpu=False) == 40  # its samples hold the host
    assert timing.sampling_budget_ms(s, timing.SHORT_CALL_MS) == 40
    assert timing.sampling_budget_ms(s, float("inf")) == 40
    assert timing.sampling_budget_ms(timing.Settings(ci_budget_ms=40), 0.005) == 40  # not set
    with pytest.raises(WorkerError) as e:
        timing.Settings.from_request({"short_call_budget_ms": -1.0})
    assert e.value.kind == "protocol_error"
    assert timing.Settings.from_request({"short_call_budget_ms": 12}).short_call_budget_ms == 12


def test_a_target_out_of_the_budgets_reach_takes_no_more_rounds(monkeypatch):
    """1 ms samples spread by 50%: the 1% interval needs thousands of samples, the 50 ms budget
    affords about 40 more, so sampling stops after the planned round instead of spending it."""
    import random
    rng = random.Random(3)
    call = _fake_gpu(monkeypatch, lambda i: 1.0 * (1 + 0.5 * rng.random()))
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_budget_ms=50), None, extra)
    assert extra["sampling"] == "budget" and len(samples) == 10
    # Within reach (a 10% spread, 300 ms): the rounds go on to the target, as before.
    call = _fake_gpu(monkeypatch, lambda i: 0.1 * (1 + 0.1 * rng.gauss(0, 1)))
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_budget_ms=300), None, extra)
    assert extra["sampling"] == "ci" and len(samples) > 100


def test_a_long_call_takes_one_bracket_and_five_samples(monkeypatch):
    call = _fake_gpu(monkeypatch, lambda i: 20.0)
    monkeypatch.setattr(timing, "_call_of", lambda entry, builders, w: call)
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(), None)
    assert result["status"] == "ok" and result["bracket_ms"] == [pytest.approx(20.0)]
    assert len(result["samples_ms"]) == timing.LONG_CALL_MIN_SAMPLES


def test_no_target_keeps_the_plan(monkeypatch):
    import random
    rng = random.Random(5)
    call = _fake_gpu(monkeypatch, lambda i: 0.1 * (1 + 0.3 * rng.random()))
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_target=0), None, extra)
    assert 14 <= len(samples) <= 20 and extra["sampling"] == "plan"  # 2 ms at 0.1-0.13 ms


def test_each_workload_reports_where_its_time_went(monkeypatch):
    call = _fake_gpu(monkeypatch, lambda i: 0.5)
    monkeypatch.setattr(timing, "_call_of", lambda entry, builders, w: call)
    result, faulted = timing._time_one(None, None, {"index": 3, "seed": 1}, _settings(), None)
    assert result["status"] == "ok" and not faulted
    phases = result["phase_ms"]
    assert list(phases) == ["inputs", "warmup", "samples", "brackets"]
    # Two warm-up calls, one blocking probe (a plain call, then one behind the sleep).
    assert phases["warmup"] == pytest.approx(4 * 0.5)
    assert phases["samples"] == pytest.approx(0.5 * len(result["samples_ms"]))
    assert phases["brackets"] == pytest.approx(0.5 * timing.BRACKET_SAMPLES)
    assert "warmup_ms" not in result  # the phase, not a stray field


def test_brackets_held_up_by_the_host_are_taken_again(monkeypatch):
    # Calls of 0.05 ms whose first three brackets the host held up for 0.6 ms each (kbx would say
    # the work escaped the stream): the worker takes another round, which agrees with the events.
    slow = {"left": 3}

    def duration(i):
        return 0.05

    call = _fake_gpu(monkeypatch, duration)
    pauses = []
    monkeypatch.setattr(timing, "_host_pause", pauses.append)
    real = timing.bracket_samples

    def held_up(c, flush, count=timing.BRACKET_SAMPLES):
        out = real(c, flush, count)
        if slow["left"]:
            slow["left"] -= len(out)
            return [b + 0.6 for b in out]
        return out

    monkeypatch.setattr(timing, "bracket_samples", held_up)
    monkeypatch.setattr(timing, "_call_of", lambda entry, builders, w: call)
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(), None)
    assert len(result["bracket_ms"]) == 2 * timing.BRACKET_SAMPLES and len(pauses) == 1
    assert min(result["bracket_ms"]) == pytest.approx(0.05)
    # Held up for three rounds (a stall of tens of milliseconds): each retry waits longer, and the
    # fourth round, out of the stall, agrees.
    slow["left"] = 3 * timing.BRACKET_SAMPLES
    pauses.clear()
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(), None)
    assert len(result["bracket_ms"]) == 4 * timing.BRACKET_SAMPLES
    assert pauses == list(timing.BRACKET_RETRY_PAUSES_S[:3]) and pauses == sorted(pauses)
    assert pauses[-1] >= 0.05
    assert not timing.brackets_disagree(result["bracket_ms"], result["samples_ms"], None)
    # A call whose work escapes stays slow in every round: all rounds are reported.
    slow["left"] = 100
    pauses.clear()
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(), None)
    assert len(result["bracket_ms"]) == (1 + timing.BRACKET_RETRIES) * timing.BRACKET_SAMPLES
    assert pauses == list(timing.BRACKET_RETRY_PAUSES_S) and sum(pauses) < 0.5
    assert timing.brackets_disagree(result["bracket_ms"], result["samples_ms"], None)


def _gpu_with_a_queue(monkeypatch, host_ms, gpu_ms, blocking=False):
    """A host clock and a GPU queue: each call takes the host host_ms and the GPU gpu_ms after the
    host launched it (either a number or a function of the call's index, from 0); a blocking call
    returns only when the GPU has finished it. Events read what the queue gives them (a GPU that
    waited for the host's launch inside a sample counts the wait) and queries say whether the GPU
    has passed an event by the host's now. Returns the call and the sleeps (ms) enqueued."""
    clock = {"host": 0.0, "gpu": 0.0, "calls": 0}
    sleeps: list[float] = []
    at = lambda ms, i: ms(i) if callable(ms) else ms  # noqa: E731

    class _FakeEvent:
        def __init__(self, **_):
            self.t = 0.0

    def sleep(cycles):
        clock["gpu"] = max(clock["gpu"], clock["host"]) + cycles / 2e6
        sleeps.append(cycles / 2e6)

    def call():
        i = clock["calls"]
        clock["calls"] += 1
        clock["host"] += at(host_ms, i)
        clock["gpu"] = max(clock["gpu"], clock["host"]) + at(gpu_ms, i)
        if blocking:
            clock["host"] = max(clock["host"], clock["gpu"])

    def record(event):
        clock["gpu"] = max(clock["gpu"], clock["host"])
        event.t = clock["gpu"]

    def synchronize():
        clock["host"] = max(clock["host"], clock["gpu"])

    monkeypatch.setattr(timing, "_Event", _FakeEvent)
    monkeypatch.setattr(timing, "_record", record)
    monkeypatch.setattr(timing, "_query", lambda event: event.t <= clock["host"])
    monkeypatch.setattr(timing, "_sleep", sleep)
    monkeypatch.setattr(timing, "_synchronize", synchronize)
    monkeypatch.setattr(timing, "_perf_counter", lambda: clock["host"] / 1e3)
    monkeypatch.setattr(timing, "_elapsed_time", lambda a, b: b.t - a.t)
    monkeypatch.setattr(timing, "_cycles_per_ms", [2e6])
    return call, sleeps


def test_a_call_that_waits_for_the_gpu_gets_no_head_start(monkeypatch):
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.05, gpu_ms=0.2, blocking=True)
    extra = {}
    samples, _ = timing.sample(call, _settings(), None, extra)
    assert extra.get("blocks_host") is True
    assert sleeps == [timing.BLOCK_PROBE_MS] * 2  # the two probes, then no sleep per sample
    assert len(samples) >= 10


def test_a_call_that_only_enqueues_is_not_taken_for_blocking(monkeypatch):
    # Launch-bound (the host's launch is most of its wall time): probed once, then head starts.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.2, gpu_ms=0.05, blocking=False)
    extra = {}
    timing.sample(call, _settings(), None, extra)
    assert "blocks_host" not in extra
    assert sleeps[0] == timing.BLOCK_PROBE_MS and timing.BLOCK_PROBE_MS not in sleeps[1:]
    # GPU-bound (the launch returns long before the GPU is done): never probed.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.05, gpu_ms=0.2, blocking=False)
    extra = {}
    timing.sample(call, _settings(), None, extra)
    assert "blocks_host" not in extra and timing.BLOCK_PROBE_MS not in sleeps


def test_the_blocking_probe_counts_towards_the_warm_up_time(monkeypatch):
    # A launch-bound call of 0.1 ms and a 3 ms warm-up: the probe (a plain call, then one behind a
    # 1 ms sleep) runs once the two minimum calls are done and is part of the 3 ms, not after it.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.1, gpu_ms=0.02, blocking=False)
    warm = timing._warm_up(call, _settings(warmup_ms=3), probe=True)
    assert warm.blocking is False and sleeps == [timing.BLOCK_PROBE_MS]
    assert timing._perf_counter() * 1e3 == pytest.approx(3.0, abs=0.15)
    # Without a probe wanted (GPU-bound), no sleep; without `probe`, none either.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.02, gpu_ms=0.5, blocking=False)
    assert timing._warm_up(call, _settings(warmup_ms=3), probe=True).blocking is None
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=0.1, gpu_ms=0.02, blocking=False)
    assert timing._warm_up(call, _settings(warmup_ms=3)).blocking is None and not sleeps


def test_the_host_time_is_a_median_that_one_stall_does_not_move(monkeypatch):
    call, _ = _gpu_with_a_queue(monkeypatch, host_ms=0.1, gpu_ms=0.02, blocking=False)
    calls = [0]

    def stalling():
        calls[0] += 1
        if calls[0] == 12:  # one sample's launch (warm-up and probe take about 5) held up 100 ms
            timing_clock_stall(100.0)
        call()

    clock = {}

    def timing_clock_stall(ms):
        clock["stall"] = clock.get("stall", 0.0) + ms

    real = timing._perf_counter
    monkeypatch.setattr(timing, "_perf_counter", lambda: real() + clock.get("stall", 0.0) / 1e3)
    extra = {}
    timing.sample(stalling, _settings(ci_target=0), None, extra)
    assert extra["host_ms"] == pytest.approx(0.1)


def test_a_launch_longer_than_any_head_start_is_timed_as_it_runs(monkeypatch):
    # 15 ms of host work per call (hundreds of launches) against 1 ms of GPU work: no head start
    # (20 ms at most, over a margin of 2) covers it, so none is given and the result says so.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=15.0, gpu_ms=1.0, blocking=False)
    extra = {}
    samples, _ = timing.sample(call, _settings(), None, extra)
    assert extra.get("host_bound") is True and "blocks_host" not in extra
    # The blocking probe only (it returned at once), its sleep four times the plain call, capped.
    assert sleeps == [timing.BLOCK_PROBE_MAX_MS]
    assert len(samples) >= 5
    # 9 ms is covered: head starts as usual.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=9.0, gpu_ms=1.0, blocking=False)
    extra = {}
    timing.sample(call, _settings(), None, extra)
    assert "host_bound" not in extra and len(sleeps) > 2


def test_a_gpu_slower_than_the_host_needs_only_a_short_head_start(monkeypatch):
    """GPU 0.2 ms per sample, host 0.05 ms: once the GPU's pace is known, the sleep covers one
    sample's launch (times the margin), not the whole batch's."""
    monkeypatch.setattr(timing, "_sleep", lambda cycles: None)
    monkeypatch.setattr(timing, "_cycles_per_ms", [2e6])
    batches = timing._Batches(_settings(), best_ms=0.25, best_launch_ms=0.05, flush_buffer=None)
    batches.host_per_sample_ms, batches.gpu_per_sample_ms = 0.05, 0.2
    assert batches.head_start_ms(32) == pytest.approx(max(timing.HEAD_START_MIN_MS, 2 * 0.05))
    # A host slower than the GPU: the batch's lag, n x (h - g) + g, times the margin.
    batches.host_per_sample_ms, batches.gpu_per_sample_ms = 0.3, 0.1
    assert batches.head_start_ms(10) == pytest.approx(2 * (10 * 0.2 + 0.1))
    assert batches.head_start_ms(1000) == timing.HEAD_START_MAX_MS


@pytest.mark.parametrize("host_ms, gpu_ms", [(0.05, 0.2), (0.2, 0.05), (0.1, 0.1), (1.0, 0.02)])
def test_the_gpu_never_waits_for_the_host_inside_a_sample(monkeypatch, host_ms, gpu_ms):
    """On the queue model, each sample's events span exactly the GPU's time for it: the GPU never
    waits for the host's launch between a start event and its call's work."""
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=host_ms, gpu_ms=gpu_ms, blocking=False)
    spans = []
    original = timing._record
    pending = []

    def record(event):
        original(event)
        if pending:
            spans.append(event.t - pending.pop())
        else:
            pending.append(event.t)

    monkeypatch.setattr(timing, "_record", record)
    timing.sample(call, _settings(ci_target=0, budget_ms=20), None, {})
    assert len(spans) >= 10
    assert all(abs(x - gpu_ms) < 1e-9 for x in spans), spans


def test_a_host_slowed_for_a_while_neither_looks_blocking_nor_reaches_the_samples(monkeypatch):
    """Session 31 on an H100: a worker that had idled seconds for the GPU launched kl_div's calls
    at 1.5 ms, then 0.1 ms tens of milliseconds later, against the warm-up's 0.1 ms; its samples
    read the host's pace (0.18 ms for 0.023 ms of GPU work). Here: the warm-up at 0.1 ms, the next
    40 calls at 1.5 ms, the rest at 0.1 ms; 0.02 ms of GPU work each."""
    pace = lambda i: 1.5 if 3 <= i < 43 else 0.1
    call, sleeps = _gpu_with_a_queue(monkeypatch, pace, gpu_ms=0.02)
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_target=0), None, extra)
    # The probe's plain call ran at the slow pace too: no wait for its sleep, not blocking.
    assert "blocks_host" not in extra
    # Every kept sample is the GPU's time: the ones the GPU waited in were taken again.
    assert len(samples) >= 10 and max(samples) == pytest.approx(0.02)
    assert extra["waited_samples"] > 0


def test_a_blocking_call_is_still_found_on_a_slow_host(monkeypatch):
    # 1.5 ms of host per call throughout, and the call waits for the GPU: still blocking.
    call, sleeps = _gpu_with_a_queue(monkeypatch, host_ms=1.5, gpu_ms=0.2, blocking=True)
    extra = {}
    timing.sample(call, _settings(), None, extra)
    assert extra.get("blocks_host") is True
    assert sleeps[:2] == [pytest.approx(4 * 1.7)] * 2  # four times the plain call, twice


def test_a_call_that_waits_after_launching_most_of_its_work_is_found_once_it_catches_up(
        monkeypatch):
    """Session 31 on an H200: fused_log_tanh's reference checks its domain (a reduction and a host
    sync) and then launches the rest; at 0.2 ms of GPU work its launch was short against its wall
    time, so it was not probed, got head starts and waited out each one: 20 ms of host a sample."""
    # Even-numbered launches: the check's reduction (0.01 ms of GPU); odd: the kernels (0.3 ms).
    call, sleeps = _gpu_with_a_queue(monkeypatch, lambda i: 0.02,
                                     gpu_ms=lambda i: 0.3 if i % 2 else 0.01)

    def check_then_work():
        call()
        timing._synchronize()  # the domain check's .item()
        call()

    extra = {}
    samples, _ = timing.sample(check_then_work, _settings(ci_target=0, budget_ms=10), None, extra)
    assert extra.get("blocks_host") is True
    head_starts = [ms for ms in sleeps if ms != timing.BLOCK_PROBE_MS]
    assert len(head_starts) <= 3  # the first round's batch (then the probe's own sleeps)
    assert len(samples) >= 10


def test_without_a_head_start_no_sample_is_dropped(monkeypatch):
    # A blocking call gets no head start: its samples include the host's share by design, none of
    # them is taken for a wait and dropped.
    call, _ = _gpu_with_a_queue(monkeypatch, lambda i: 0.05, gpu_ms=0.2)
    monkeypatch.setattr(timing, "blocks_host", lambda call, launch_ms: True)
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_target=0), None, extra)
    assert "waited_samples" not in extra and len(samples) >= 10


def test_a_passing_host_slowdown_is_taken_again_in_samples_without_a_head_start(monkeypatch):
    """Session 31 on an H100, masked_select (it blocks the host: no head start): 19 samples of
    66 us, 18 of 0.7-1.0 ms, then 60 falling back from 0.5 to 0.15 ms. The slow segments are
    taken again after a pause."""
    slow = [680.0 + 10 * (i % 7) for i in range(18)] + [500.0 - 6 * i for i in range(60)]
    samples = [66.0] * 19 + slow + [66.0] * 3
    pauses, taken = [], []
    monkeypatch.setattr(timing, "_host_pause", pauses.append)

    def take(n):
        taken.append(n)
        return [67.0] * n

    dropped = [0]
    out = timing.steady(list(samples), take, dropped)
    # The last four (under half a segment) are not judged: one slow sample may stay among them.
    assert len(out) == len(samples) and sum(x > 80.0 for x in out) <= 1
    assert dropped[0] == sum(taken) and pauses == [timing.STEADY_PAUSES_S[0]]
    # Slow again when taken again: at most len(STEADY_PAUSES_S) tries, then what is there stays.
    pauses.clear()
    dropped = [0]
    out = timing.steady(list(samples), lambda n: [900.0] * n, dropped)
    assert len(out) == len(samples) and len(pauses) == len(timing.STEADY_PAUSES_S)
    # Steady samples, and too few to judge: untouched, no pause.
    pauses.clear()
    steady = [66.0 + (i % 5) for i in range(100)]
    assert timing.steady(list(steady), take, [0]) == steady and not pauses
    assert timing.steady([66.0] * 16 + [900.0] * 7, take, [0]) == [66.0] * 16 + [900.0] * 7


def test_a_blocking_call_on_a_host_slowed_for_a_while_reads_its_usual_time(monkeypatch):
    # The queue model without a head start (a launch-bound call found blocking): each sample holds
    # the host's launch. Calls 20-59 take the host 1.0 ms instead of 0.05 ms.
    pace = lambda i: 1.0 if 20 <= i < 60 else 0.05
    call, _ = _gpu_with_a_queue(monkeypatch, pace, gpu_ms=0.02)
    monkeypatch.setattr(timing, "blocks_host", lambda call, launch_ms: True)
    monkeypatch.setattr(timing, "_host_pause", lambda s: None)
    extra = {}
    samples, _ = timing.sample(call, _settings(ci_target=0, budget_ms=25), None, extra)
    assert extra["unsteady_samples"] > 0
    assert "blocks_host" in extra
    assert max(samples) == pytest.approx(0.07)  # launch and GPU work, the host at its usual pace


@pytest.mark.parametrize("readings, steps", [
    ([0.5] * 10, 3),                              # a busy GPU: steady at once
    ([3.0, 2.0, 1.2, 0.8, 0.52, 0.51, 0.51], 7),  # clocks ramping up from idle
    ([float("nan")] * 100, None),                 # forged events: until the time is up
])
def test_spin_up_runs_until_the_clock_reads_steady(monkeypatch, readings, steps):
    now = [0.0]
    taken = []

    class _FakeEvent:
        def __init__(self, **_):
            pass

    def zero(buffer):
        now[0] += 0.05 / 1e3

    def elapsed(a, b):
        taken.append(1)
        return readings[min(len(taken), len(readings)) - 1]

    monkeypatch.setattr(timing, "_zero", zero)
    monkeypatch.setattr(timing, "_Event", _FakeEvent)
    monkeypatch.setattr(timing, "_record", lambda e: None)
    monkeypatch.setattr(timing, "_sleep", lambda cycles: None)
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    monkeypatch.setattr(timing, "_perf_counter", lambda: now[0])
    monkeypatch.setattr(timing, "_elapsed_time", elapsed)
    timing.spin_up(object(), 5.0)
    if steps is None:
        assert now[0] * 1e3 >= 5.0
    else:
        assert len(taken) == steps


def test_graph_mode_is_off_unless_asked_and_its_settings_are_checked():
    settings = timing.Settings.from_request({})
    assert settings.graph is False and settings.graph_max_ms == 0.05
    settings = timing.Settings.from_request({"graph": True, "graph_max_ms": 0.02})
    assert settings.graph is True and settings.graph_max_ms == 0.02
    for raw in [{"graph": 1}, {"graph_max_ms": -1}, {"graph_max_ms": "0.1"}]:
        with pytest.raises(WorkerError):
            timing.Settings.from_request(raw)


def _fake_graphs(monkeypatch, eager_ms, replay_ms, capture_error=None):
    """The fake GPU of _fake_gpu with fake CUDA graphs: a call lasts eager_ms, a replay replay_ms
    (the capture itself runs the call once). `capture_error` is raised inside the capture.
    Returns the call and a log of what happened to the graphs."""
    state = {"replaying": False}
    log: list[str] = []
    call = _fake_gpu(monkeypatch, lambda i: replay_ms if state["replaying"] else eager_ms)

    class _FakeGraph:
        pass

    class _Capture:
        def __init__(self, graph):
            self.graph = graph

        def __enter__(self):
            log.append("capture")

        def __exit__(self, *exc):
            if capture_error is not None:
                raise capture_error
            return False

    def replay(graph):
        state["replaying"] = True
        try:
            call()
        finally:
            state["replaying"] = False

    monkeypatch.setattr(timing, "_CUDAGraph", _FakeGraph)
    monkeypatch.setattr(timing, "_graph", _Capture)
    monkeypatch.setattr(timing, "_replay", replay)
    monkeypatch.setattr(timing, "_reset_graph", lambda graph: log.append("reset"))
    monkeypatch.setattr(timing, "_Stream", lambda: object())
    monkeypatch.setattr(timing, "_wait_stream", lambda stream, other: None)
    monkeypatch.setattr(timing, "_use_stream", lambda stream: _NullContext())
    monkeypatch.setattr(timing, "_current_stream", lambda: object())
    monkeypatch.setattr(timing, "_empty_cache", lambda: log.append("empty_cache"))
    monkeypatch.setattr(timing, "_call_of", lambda entry, builders, w: call)
    return call, log


class _NullContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_short_workload_is_also_timed_as_a_graph(monkeypatch):
    _, log = _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004)
    result, faulted = timing._time_one(None, None, {"index": 0, "seed": 1},
                                       _settings(graph=True), None)
    assert result["status"] == "ok" and not faulted
    assert result["samples_ms"] and all(s == 0.01 for s in result["samples_ms"])
    assert len(result["graph_samples_ms"]) >= 10
    assert all(s == 0.004 for s in result["graph_samples_ms"])
    assert "graph_error" not in result
    assert result["phase_ms"]["graph"] > 0
    assert log == ["capture", "reset", "empty_cache"]  # freed before the next workload


def test_a_workload_above_the_threshold_is_not_timed_as_a_graph(monkeypatch):
    _, log = _fake_graphs(monkeypatch, eager_ms=0.1, replay_ms=0.004)
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1},
                                 _settings(graph=True, graph_max_ms=0.05), None)
    assert result["status"] == "ok"
    assert "graph_samples_ms" not in result and "graph_error" not in result
    assert "graph" not in result["phase_ms"] and log == []


def test_without_graph_mode_no_graph_is_captured(monkeypatch):
    _, log = _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004)
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(), None)
    assert result["status"] == "ok"
    assert "graph_samples_ms" not in result and "graph_error" not in result
    assert "graph" not in result["phase_ms"] and log == []


def test_a_failed_capture_is_reported_beside_intact_eager_samples(monkeypatch):
    error = RuntimeError("operation not permitted when stream is capturing\nsecond line")
    _, log = _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004, capture_error=error)
    result, faulted = timing._time_one(None, None, {"index": 0, "seed": 1},
                                       _settings(graph=True), None)
    assert result["status"] == "ok" and not faulted
    assert result["samples_ms"] and all(s == 0.01 for s in result["samples_ms"])
    assert result["graph_error"] == ("RuntimeError: operation not permitted when stream is "
                                     "capturing")
    assert "graph_samples_ms" not in result
    assert "empty_cache" in log


def test_a_graph_error_is_short(monkeypatch):
    _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004,
                 capture_error=ValueError("x" * 1000))
    result, _ = timing._time_one(None, None, {"index": 0, "seed": 1}, _settings(graph=True), None)
    assert result["graph_error"].startswith("ValueError: xxx")
    assert len(result["graph_error"]) == timing.GRAPH_ERROR_CHARS


def test_a_gpu_fault_in_the_capture_fails_the_later_workloads_not_this_one(monkeypatch):
    error = RuntimeError("CUDA error: an illegal memory access was encountered")
    _, log = _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004, capture_error=error)
    workloads = [{"index": 0, "seed": 1}, {"index": 1, "seed": 2}]
    results, faulted = timing.time_workloads(None, None, "cuda", workloads,
                                             _settings(graph=True), None)
    assert faulted
    assert results[0]["status"] == "ok" and "illegal memory access" in results[0]["graph_error"]
    assert results[1]["status"] == "error" and results[1]["error"]["kind"] == "gpu_fault"
    assert "empty_cache" not in log  # a dead context is left alone


class _RecordingCpus:
    """Stands in for host_cpus.FastCpus: records its use by time_workloads."""
    made: list["_RecordingCpus"] = []

    def __init__(self, min_cpus):
        self.min_cpus, self.log = min_cpus, ["enter"]
        self.cpus, self.allowed, self.probes, self.best_us = 3, [0, 1, 2, 3], 1, 40.0
        _RecordingCpus.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append("exit")

    def check(self):
        self.log.append("check")

    def figures(self):
        return {"canary_us": self.best_us, "cpus": self.cpus, "probes": self.probes}


@pytest.mark.parametrize("fast", [True, False])
def test_workloads_are_timed_on_the_fast_cpus_unless_asked_not_to(monkeypatch, capsys, fast):
    _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004)
    _RecordingCpus.made = []
    monkeypatch.setattr(timing.host_cpus, "FastCpus", _RecordingCpus)
    workloads = [{"index": i, "seed": i} for i in range(3)]
    results, faulted = timing.time_workloads(None, None, "cuda", workloads,
                                             _settings(fast_cpus=fast), None)
    assert not faulted and all(r["status"] == "ok" for r in results)
    log = capsys.readouterr().err  # the worker's log: one line a request
    assert ": 3 workloads, GPU clock MHz [" in log and "median ms [0.01, 0.01, 0.01]" in log
    assert all("gpu_mhz" in r for r in results)
    if not fast:
        assert not _RecordingCpus.made and "host_cpus" not in results[0]
        assert "fast CPUs" not in log
        return
    [cpus] = _RecordingCpus.made
    assert 4 <= cpus.min_cpus <= 8
    assert cpus.log == ["enter", "check", "check", "exit"]  # before each workload but the first
    assert results[0]["host_cpus"] == {"canary_us": 40.0, "cpus": 3, "probes": 1}
    assert "3 fast CPUs of 4 (1 measurements, fastest canary 40.0 us)" in log


def test_fast_cpus_is_off_unless_asked_and_must_be_a_boolean():
    assert timing.Settings.from_request({}).fast_cpus is False
    assert timing.Settings.from_request({"fast_cpus": True}).fast_cpus is True
    with pytest.raises(WorkerError):
        timing.Settings.from_request({"fast_cpus": 1})


def test_the_gpu_clock_is_read_from_a_sleep_of_known_cycles(monkeypatch):
    mhz = {"now": 1980.0}

    class _Event:
        def __init__(self, **_):
            self.t = 0.0

    clock = [0.0]  # GPU time in ms

    def sleep(cycles):
        clock[0] += cycles / (mhz["now"] * 1e3)

    def record(event):
        event.t = clock[0]

    monkeypatch.setattr(timing, "_Event", _Event)
    monkeypatch.setattr(timing, "_record", record)
    monkeypatch.setattr(timing, "_sleep", sleep)
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    monkeypatch.setattr(timing, "_elapsed_time", lambda a, b: b.t - a.t)
    assert timing.gpu_clock_mhz() == pytest.approx(1980.0)
    mhz["now"] = 1755.0  # a request timed at a lower clock says so
    assert timing.gpu_clock_mhz() == pytest.approx(1755.0)
    monkeypatch.setattr(timing, "_elapsed_time", lambda a, b: float("nan"))
    assert timing.gpu_clock_mhz() is None
    monkeypatch.setattr(timing, "_sleep", None)
    assert timing.gpu_clock_mhz() is None


def test_a_broken_stderr_does_not_fail_the_request(monkeypatch):
    _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004)

    class _Broken:
        def write(self, _):
            raise OSError("closed by the submission")

        def flush(self):
            raise OSError("closed by the submission")

    monkeypatch.setattr(timing.sys, "stderr", _Broken())
    results, faulted = timing.time_workloads(None, None, "cuda", [{"index": 0, "seed": 1}],
                                             _settings(), None)
    assert not faulted and results[0]["status"] == "ok"


class _CpuHost:
    """One thread on four CPUs of which CPU 0 is in a slow spell; the thread runs on the lowest CPU
    of its mask (as a thread the system leaves where it is)."""

    def __init__(self):
        self.mask = {0, 1, 2, 3}

    def threads(self):
        return [1]

    def get(self, tid):
        return set(self.mask)

    def set(self, tid, cpus):
        self.mask = set(cpus)

    def me(self):
        return 1

    def host_ms(self, i):
        return 0.3 if min(self.mask) == 0 else 0.1  # the slow CPU's host share is 3x


@pytest.mark.parametrize("spread", [False, True])
def test_samples_spread_over_the_cpus_read_the_full_speed(monkeypatch, spread):
    """A call that blocks the host, timed by a thread sitting on a CPU in a slow spell: every
    sample reads the slow level unless each runs on the next CPU, when the median is the CPUs'
    at full speed and the thread gets its CPUs back afterwards."""
    cpus = _CpuHost()
    call, _ = _gpu_with_a_queue(monkeypatch, cpus.host_ms, gpu_ms=0.02, blocking=True)
    monkeypatch.setattr(timing, "blocks_host", lambda call, launch_ms: True)
    monkeypatch.setattr(timing, "_host_pause", lambda s: None)
    extra = {}
    with timing.host_cpus.SpreadCpus(affinity=cpus) as spreader:
        samples, _ = timing.sample(call, _settings(ci_target=0, budget_ms=5), None, extra,
                                   spreader if spread else None)
        assert cpus.mask == {0, 1, 2, 3}  # given back before sample() returns
    median = timing._median(samples)
    assert median == pytest.approx(0.12 if spread else 0.32)
    assert (spreader.moves >= len(samples)) == spread


def test_spread_cpus_move_only_samples_that_hold_host_work(monkeypatch, capsys):
    """A GPU-bound call behind head starts never moves; without head starts each sample does, and
    the request's first result and log line say how far the samples were spread."""
    _fake_graphs(monkeypatch, eager_ms=0.01, replay_ms=0.004)
    cpus = _CpuHost()
    monkeypatch.setattr(timing.host_cpus, "Affinity", lambda: cpus)
    workloads = [{"index": i, "seed": i} for i in range(2)]
    results, _ = timing.time_workloads(None, None, "cuda", workloads,
                                       _settings(spread_cpus=True), None)
    assert all(r["status"] == "ok" for r in results) and "spread_cpus" not in results[0]
    assert "samples spread" not in capsys.readouterr().err
    results, _ = timing.time_workloads(None, None, "cuda", workloads,
                                       _settings(spread_cpus=True, head_start=False), None)
    moves = sum(len(r["samples_ms"]) for r in results)
    assert results[0]["spread_cpus"] == {"cpus": 4, "moves": moves}
    assert f"samples spread over 4 CPUs ({moves} moves)" in capsys.readouterr().err
    assert cpus.mask == {0, 1, 2, 3}


def test_spread_cpus_is_off_unless_asked_and_must_be_a_boolean():
    assert timing.Settings.from_request({}).spread_cpus is False
    assert timing.Settings.from_request({"spread_cpus": True}).spread_cpus is True
    with pytest.raises(WorkerError):
        timing.Settings.from_request({"spread_cpus": "yes"})


def _split_gpu(monkeypatch, launches_ms, gpu_ms):
    """A call whose launch takes launches_ms(i) ms of host time and whose GPU work, gpu_ms, the
    synchronisation after it waits out: the warm-up sees a short launch and a long wall."""
    now = [0.0]
    calls = [0]
    pending = [0.0]

    def call():
        now[0] += launches_ms(calls[0]) / 1e3
        calls[0] += 1
        pending[0] = gpu_ms / 1e3

    def synchronize():
        now[0] += pending[0]
        pending[0] = 0.0

    monkeypatch.setattr(timing, "_synchronize", synchronize)
    monkeypatch.setattr(timing, "_perf_counter", lambda: now[0])
    return call


def test_a_long_gpu_bound_call_warms_up_in_one_call(monkeypatch):
    call = _split_gpu(monkeypatch, lambda i: 0.05, 20.0)
    calls, best_ms, launch_ms, _ = timing._warm_up(call, _settings(warmup_ms=2))
    assert calls == 1 and best_ms == pytest.approx(20.05) and launch_ms == pytest.approx(0.05)


def test_a_long_call_whose_first_launch_compiled_warms_up_twice(monkeypatch):
    # The first launch spent 500 ms on the host (a compile): the GPU's time is still unknown.
    call = _split_gpu(monkeypatch, lambda i: 500.0 if i == 0 else 0.05, 20.0)
    calls, best_ms, _, _ = timing._warm_up(call, _settings(warmup_ms=2))
    assert calls == 2 and best_ms == pytest.approx(20.05)


@pytest.mark.parametrize("gpu_ms,warmup_ms", [(0.5, 0), (20.0, 50)])
def test_short_calls_and_a_warmup_time_still_take_their_calls(monkeypatch, gpu_ms, warmup_ms):
    call = _split_gpu(monkeypatch, lambda i: 0.05, gpu_ms)
    calls = timing._warm_up(call, _settings(warmup_ms=warmup_ms)).calls
    assert calls == max(2, int(warmup_ms // (gpu_ms + 0.05)) + 1)


class _FakeRecorder:
    """CUPTI's records on a clock in ns that each call moves on; `clock` False reads 0."""

    def __init__(self, clock: bool = True):
        self.now = 1_000_000
        self.clock = clock
        self.kept: list[tuple] = []
        self.stamps: list[int] = []
        self.reads = self.clears = 0

    def push(self, tag):
        pass

    def pop(self, tag):
        pass

    def clear(self):
        self.clears += 1
        self.kept = []

    def timestamp(self):
        """The clock now; half a millisecond passes before whatever follows on the host."""
        if not self.clock:
            return 0
        self.stamps.append(self.now)
        self.now += 500_000
        return self.stamps[-1]

    def records(self):
        self.reads += 1
        return list(self.kept)

    def kernel(self, name, ns, origin=0, gap=5_000):
        self.kept.append((name, self.now + gap, self.now + gap + ns, 7, origin))
        self.now += gap + ns + gap


def test_the_inventory_reads_its_records_once_and_tells_the_calls_apart(monkeypatch):
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    rec = _FakeRecorder()
    lengths = iter([(30_000, 10_000), (40_000,), (30_000, 20_000)])

    def call():
        if len(rec.stamps) >= 3:  # another thread's kernel between the last call's window and this
            last_end = rec.stamps[-2]
            rec.kept.append(("stray", last_end + 250_000, last_end + 300_000, 9, 0))
        for ns in next(lengths):
            rec.kernel("k", ns, origin=1)

    extra = {}
    timing.inventory_calls(call, None, rec, extra, 3)
    assert rec.reads == 1 and rec.clears == 1
    assert extra["kernel_calls"] == 3 and len(extra["inventory_ms"]) == 3
    # Each call's span, first start to last end (10 us between kernels): 30 + 10 + 10 us, 40 us,
    # 30 + 10 + 20 us; the stray kernels are in no call's window.
    assert extra["inventory_kernel_ms"] == pytest.approx([0.05, 0.04, 0.06])
    assert extra["kernels"] == [{"name": "k", "origin": "triton", "launches": 5,
                                 "gpu_ms": pytest.approx(0.13)}]
    assert extra["kernel_busy_ms"] == pytest.approx(0.13 / 3)
    # Each call's busy time: 30 + 10 us, 40 us, 30 + 20 us (the gaps between kernels are idle).
    assert extra["inventory_busy_ms"] == pytest.approx([0.04, 0.04, 0.05])


def test_without_cuptis_clock_each_calls_records_are_read_after_it(monkeypatch):
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    rec = _FakeRecorder(clock=False)

    def call():
        rec.kernel("k", 30_000, origin=1)

    extra = {}
    timing.inventory_calls(call, None, rec, extra, 3)
    assert rec.reads == 3 and rec.clears == 4
    assert extra["inventory_kernel_ms"] == pytest.approx([0.03] * 3)
    assert extra["kernels"][0]["launches"] == 3


@pytest.mark.parametrize("clock", [True, False])
def test_the_inventory_reports_each_flush_it_ran_before_a_call(monkeypatch, clock):
    # kbx checks that an L2 flush of the device's L2 ran before every inventory call (a candidate
    # that turned kbx's flush off, or shrank its buffer, times with a warm cache): the harness's
    # own kernels come back, one per call, in the order they ran; the call's kernels stay apart.
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    rec = _FakeRecorder(clock=clock)
    widths = iter([17_000, 18_000, 16_000])
    monkeypatch.setattr(timing, "_zero", lambda buffer: rec.kernel("fill", next(widths),
                                                                   origin=inventory.HARNESS))

    def call():
        rec.kernel("k", 30_000, origin=1)

    extra = {}
    timing.inventory_calls(call, object(), rec, extra, 3)
    assert extra["inventory_flush_ms"] == pytest.approx([0.017, 0.018, 0.016])
    assert extra["kernels"] == [{"name": "k", "origin": "triton", "launches": 3,
                                 "gpu_ms": pytest.approx(0.09)}]
    assert extra["inventory_kernel_ms"] == pytest.approx([0.03] * 3)

    # A flush that no longer runs leaves no record: the list is shorter than the calls.
    monkeypatch.setattr(timing, "_zero", lambda buffer: None)
    extra = {}
    timing.inventory_calls(call, object(), rec, extra, 3)
    assert extra["inventory_flush_ms"] == []
    # Without a flush buffer (kbx eval --no-flush-l2) there is nothing to report.
    extra = {}
    timing.inventory_calls(call, None, rec, extra, 3)
    assert "inventory_flush_ms" not in extra


def test_the_inventory_calls_run_on_another_draw_of_the_inputs(monkeypatch):
    # A call that keeps results across calls on the same inputs (by the tensors' identity, address
    # or contents) must do its full work in the inventory: its inputs are another draw.
    built = []
    monkeypatch.setattr(timing, "_call_of",
                        lambda entry, builders, w: built.append(w["seed"]) or (lambda: None))
    monkeypatch.setattr(timing, "inventory_calls",
                        lambda call, flush, rec, extra, count: extra.update(kernel_calls=count))
    workload = {"index": 0, "seed": 1234, "args": [], "kwargs": {}}
    result = timing._inventory_one(None, None, workload, timing.Settings.from_request({}), None,
                                   object(), 3)
    assert result == {"status": "ok", "extra": {"kernel_calls": 3}}
    assert built == [timing.inventory_seed(1234)]
    assert workload["seed"] == 1234  # the workload itself is left as it was
    seeds = {timing.inventory_seed(s) for s in (0, 1, 1234, 2**40, 2**63 - 1)}
    assert len(seeds) == 5 and all(0 <= s < 2**63 for s in seeds)
    assert all(timing.inventory_seed(s) != s for s in (0, 1, 1234, 2**40))
