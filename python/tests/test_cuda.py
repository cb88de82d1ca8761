"""The CUDA path through a real zygote with Triton compiling for the GPU (skipped without a GPU)."""

from __future__ import annotations

import textwrap

import pytest
import torch

import support

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

KERNELS = textwrap.dedent('''
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _double(x_ptr, out_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs + SHIFT, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


    @triton.jit
    def _bad_block(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


    def double(x):
        out = torch.empty_like(x)
        _double[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), SHIFT=0, BLOCK=128)
        return out


    def wild_store(x):
        out = torch.empty_like(x)
        _double[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), SHIFT=1 << 40, BLOCK=128)
        return out


    def not_compilable(x):
        _bad_block[(1,)](x, BLOCK=100)  # tl.arange needs a power of two
        return x


    def too_big(x):
        return torch.empty(1 << 50, dtype=torch.uint8, device=x.device)
''')


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    proc, control = support.spawn_zygote(tmp_path_factory.mktemp("cuda"), interpret=False)
    assert control.read().header["env"]["interpret"] is False
    yield control
    control.send({"op": "shutdown"})
    assert proc.wait(support.TIMEOUT_S) == 0


def candidate(zygote, tmp_path, entry: str, fork_id: int):
    worker, _ = support.fork(zygote, tmp_path / f"{entry}.log", fork_id, device="cuda", gpu=0)
    ready = worker.read().header
    assert ready["op"] == "ready" and "error" not in ready, ready
    loaded = worker.request({"op": "load", "code": KERNELS, "filename": "Test/kernels.py",
                             "entry_names": [entry]}).header
    assert loaded["ok"], loaded
    return worker, ready, loaded["handle"]


def x_case(index: int, n: int = 1000) -> dict:
    return {"index": index, "seed": 3, "args": [{"tensor": {"shape": [n], "init": "ones"}}]}


def finish(zygote, worker) -> None:
    worker.send({"op": "exit"})
    assert zygote.read().header["op"] == "exited"
    worker.sock.close()


def test_cuda_worker_describes_its_device_and_runs_and_times_a_triton_kernel(zygote, tmp_path):
    worker, ready, handle = candidate(zygote, tmp_path, "double", 1)
    device = ready["device"]
    assert device["kind"] == "cuda" and device["sm_count"] > 0 and device["l2_cache_bytes"] > 0
    frame = worker.request({"op": "run_cases", "handle": handle, "device": "cuda",
                            "cases": [x_case(0), x_case(1)]})
    results = frame.header["results"]
    assert [r["status"] for r in results] == ["ok", "ok"], results
    assert results[0]["outputs"][0]["tensor"]["device"] == "cuda"
    assert frame.header["triton_launches"] == 2
    assert frame.payload == torch.full((2000,), 2.0).numpy().tobytes()
    settings = {"warmup_ms": 5, "warmup_min_calls": 2, "min_samples": 5, "max_samples": 50,
                "budget_ms": 2, "flush_l2": True}
    timings = worker.request({"op": "time", "handle": handle, "device": "cuda",
                              "workloads": [x_case(0, 1 << 20)], "settings": settings}).header
    result = timings["results"][0]
    assert result["status"] == "ok", result
    assert result["warmup_calls"] >= 2 and 5 <= len(result["samples_ms"]) <= 50
    assert all(s > 0 for s in result["samples_ms"])
    finish(zygote, worker)


def test_an_illegal_address_is_a_gpu_fault_and_the_worker_refuses_more_gpu_work(zygote, tmp_path):
    worker, _, handle = candidate(zygote, tmp_path, "wild_store", 2)
    results = worker.request({"op": "run_cases", "handle": handle, "device": "cuda",
                              "cases": [x_case(0), x_case(1)]}).header["results"]
    assert results[0]["error"]["kind"] == "gpu_fault", results
    assert results[1]["status"] == "not_run"
    timings = worker.request({"op": "time", "handle": handle, "device": "cuda",
                              "workloads": [x_case(0)], "settings": {}}).header
    assert timings["results"][0]["error"]["kind"] == "gpu_fault"
    finish(zygote, worker)


@pytest.mark.parametrize("entry, kind, fork_id", [("not_compilable", "triton_compile_error", 3),
                                                  ("too_big", "out_of_memory", 4)])
def test_compile_errors_and_out_of_memory_are_classified(zygote, tmp_path, entry, kind, fork_id):
    worker, _, handle = candidate(zygote, tmp_path, entry, fork_id)
    results = worker.request({"op": "run_cases", "handle": handle, "device": "cuda",
                              "cases": [x_case(0)]}).header["results"]
    assert results[0]["error"]["kind"] == kind, results
    finish(zygote, worker)


def test_spin_up_stops_once_the_clock_is_steady():
    import time

    from kbx_worker import timing

    buffer = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    timing.spin_up(buffer, 50.0)  # whatever the clocks were, they are up now
    start = time.perf_counter()
    timing.spin_up(buffer, 50.0)
    elapsed_ms = (time.perf_counter() - start) * 1e3
    assert elapsed_ms < 40.0  # a busy GPU settles within a few readings
    start = time.perf_counter()
    timing.spin_up(buffer, 0.0)
    assert (time.perf_counter() - start) * 1e3 < 5.0
