"""The compile baseline: request checks, torch.compile of a real task reference on the CPU through
the worker's code path, compile failures as per-workload errors, and kbx's cache folder."""

from __future__ import annotations

import pathlib

import pytest
import torch

from kbx_worker import baselines, executor, timing
from kbx_worker.errors import WorkerError
from kbx_worker.values import ValueBuilder

from test_worker import Client, start_worker  # noqa: F401 - the in-process worker harness

SUITE = pathlib.Path(__file__).resolve().parents[2] / "suites" / "kernelbenchx"
GELU = SUITE / "Activation" / "gelu" / "reference.py"
WORKLOAD = {"index": 0, "seed": 11,
            "args": [{"tensor": {"shape": [4096], "dtype": "float32", "init": "rand"}}],
            "kwargs": {}}


@pytest.fixture
def inductor_env(monkeypatch, tmp_path):
    """Restores inductor's and Triton's cache variables after a test that points them at kbx's."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "before"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "before-triton"))
    return tmp_path / "torch-compile"


def gelu_entry():
    module = executor.load_source(executor.read_source(str(GELU)), str(GELU), "kbx_reference")
    return executor.find_entry(module, ["gelu"])[1], module


@pytest.mark.parametrize("raw", [
    [], {"name": "eager"}, {"name": "compile", "mode": "fast"}, {"name": "compile", "cache_dir": 3},
    {"name": "compile", "cache_dir": ""},
])
def test_bad_baselines_are_protocol_errors(raw):
    with pytest.raises(WorkerError) as e:
        baselines.Baseline.from_request(raw)
    assert e.value.kind == "protocol_error"


def test_a_baseline_defaults_to_torch_compiles_default_mode():
    b = baselines.Baseline.from_request({"name": "compile"})
    assert (b.name, b.mode, b.cache_dir) == ("compile", "default", None)


def test_a_compile_failure_is_that_workloads_error_and_the_next_one_still_runs(monkeypatch):
    calls = []

    def fake_compile(entry, baseline):
        calls.append(1)
        if len(calls) == 1:
            def broken(*args, **kwargs):
                raise RuntimeError("inductor lowering failed")
            return broken
        return entry

    monkeypatch.setattr(baselines, "compile_entry", fake_compile)
    entry, module = gelu_entry()
    second = dict(WORKLOAD, index=1)
    results, faulted = baselines.time_workloads(entry, module, "cpu", [WORKLOAD, second],
                                                timing.Settings(), None, None,
                                                baselines.Baseline("compile"))
    assert not faulted and [r["index"] for r in results] == [0, 1]
    error = results[0]["error"]
    assert error["kind"] == "torch_compile_error"
    assert error["message"].startswith("torch.compile (mode default) of the reference failed: "
                                       "RuntimeError: inductor lowering failed")
    # The second workload compiled, then reached the timer, which needs CUDA.
    assert results[1]["error"]["message"] == "timing needs a CUDA device"


def test_the_compiled_reference_matches_eager_on_the_cpu_and_caches_in_kbxs_folder(inductor_env):
    entry, module = gelu_entry()
    baselines.use_cache_dir(str(inductor_env))
    compiled, out, compile_ms = baselines.compile_for(entry, module, "cpu", WORKLOAD,
                                                      baselines.Baseline("compile"))
    args, _ = ValueBuilder(WORKLOAD["seed"], "cpu", module).build_call(WORKLOAD["args"], {})
    torch.testing.assert_close(out, entry(*args), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(compiled(*args), entry(*args), rtol=1e-5, atol=1e-6)
    assert compile_ms > 0
    assert any((inductor_env / "inductor").iterdir())  # inductor's code landed in kbx's folder


def test_a_reference_worker_compiles_for_a_baseline_request_then_times_on_cuda_only(
        launches, inductor_env):
    c, thread, _, theirs = start_worker("reference", launches)
    try:
        reply = c.request({"op": "load", "path": str(GELU), "entry_names": ["gelu"],
                           "builders_path": str(GELU)}).header
        assert reply["ok"], reply
        timed = c.request({"op": "time", "handle": reply["handle"], "device": "cpu",
                           "workloads": [WORKLOAD], "settings": {},
                           "baseline": {"name": "compile", "mode": "default",
                                        "cache_dir": str(inductor_env)}}).header
        assert timed["op"] == "timings", timed
        # Compiled on the CPU (no torch_compile_error), then refused by the timer: CUDA only.
        assert timed["results"][0]["error"]["message"] == "timing needs a CUDA device"
        assert (inductor_env / "inductor").is_dir()
    finally:
        c.sock.close()
        thread.join(10)
        theirs.close()


def test_a_candidate_worker_refuses_a_baseline(launches):
    c, thread, _, theirs = start_worker("candidate", launches)
    try:
        loaded = c.request({"op": "load", "code": "def f(x):\n    return x\n",
                            "filename": "Math/f.py", "entry_names": ["f"]}).header
        reply = c.request({"op": "time", "handle": loaded["handle"], "device": "cpu",
                           "workloads": [], "settings": {},
                           "baseline": {"name": "compile"}}).header
        assert reply["op"] == "error" and reply["error"]["kind"] == "protocol_error"
        assert "only a reference worker" in reply["error"]["message"]
    finally:
        c.sock.close()
        thread.join(10)
        theirs.close()
