"""The worker's request loop, in-process over a socket pair: replies, handles, protocol errors."""

from __future__ import annotations

import socket
import threading

import pytest
import torch

from kbx_worker.protocol import PREFIX, FrameReader, write_frame
from kbx_worker.worker import Worker

SCALE = "def scale(x, factor):\n    return x * factor\n"
FAULTY = ("def scale(x, factor):\n"
          "    raise RuntimeError('CUDA error: an illegal memory access was encountered')\n")


class Client:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.reader = FrameReader(sock)

    def request(self, header: dict):
        write_frame(self.sock, header)
        return self.reader.read()


def start_worker(role: str, launches):
    ours, theirs = socket.socketpair()
    worker = Worker(theirs, role, "cpu", None, launches)
    exit_code: list[int] = []
    thread = threading.Thread(target=lambda: exit_code.append(worker.serve()), daemon=True)
    thread.start()
    return Client(ours), thread, exit_code, theirs


@pytest.fixture(params=["reference", "candidate"])
def client(request, launches):
    c, thread, exit_code, theirs = start_worker(request.param, launches)
    yield c
    write_frame(c.sock, {"op": "exit"})
    thread.join(10)
    assert exit_code == [0]
    c.sock.close()
    theirs.close()


@pytest.fixture
def reference(launches):
    c, thread, _, theirs = start_worker("reference", launches)
    yield c
    c.sock.close()
    thread.join(10)
    theirs.close()


def load_scale(c: Client, source: str = SCALE) -> int:
    reply = c.request({"op": "load", "code": source, "filename": "Math/scale.py",
                       "entry_names": ["scale"]}).header
    assert reply["op"] == "loaded" and reply["ok"], reply
    return reply["handle"]


def run(c: Client, handle: int, cases: list[dict]):
    return c.request({"op": "run_cases", "handle": handle, "device": "cpu", "cases": cases})


def scale_case(index: int, factor: float) -> dict:
    return {"index": index, "name": f"c{index}", "seed": 7,
            "args": [{"tensor": {"shape": [3], "init": "ones"}}, factor], "kwargs": {}}


def test_load_then_run_cases_replies_with_leaves_and_payload(client):
    handle = load_scale(client)
    frame = run(client, handle, [scale_case(0, 2.0), scale_case(1, 3.0)])
    assert frame.op == "cases" and frame.header["triton_launches"] == 0
    leaves = [r["outputs"][0]["tensor"] for r in frame.header["results"]]
    assert [(t["offset"], t["nbytes"]) for t in leaves] == [(0, 12), (12, 12)]
    assert frame.payload == torch.tensor([2.0] * 3 + [3.0] * 3).numpy().tobytes()


def test_reference_worker_keeps_many_modules_by_handle(reference, tmp_path):
    handles = []
    for i, factor in enumerate((2, 5)):
        path = tmp_path / f"ref{i}.py"
        path.write_text(f"def scale(x, factor):\n    return x * factor * {factor}\n")
        reply = reference.request({"op": "load", "path": str(path), "entry_names": ["scale"],
                                   "builders_path": str(path)}).header
        handles.append(reply["handle"])
    assert handles == [1, 2]
    first = run(reference, 1, [scale_case(0, 1.0)]).payload
    second = run(reference, 2, [scale_case(0, 1.0)]).payload
    assert first == torch.full((3,), 2.0).numpy().tobytes()
    assert second == torch.full((3,), 5.0).numpy().tobytes()


def test_a_candidate_worker_loads_only_one_module(launches):
    c, thread, _, theirs = start_worker("candidate", launches)
    load_scale(c)
    reply = c.request({"op": "load", "code": SCALE, "entry_names": ["scale"]}).header
    assert reply["op"] == "error" and reply["error"]["kind"] == "protocol_error"
    c.sock.close()
    thread.join(10)
    theirs.close()


@pytest.mark.parametrize("request_header", [
    {"op": "frobnicate"},
    {"op": "load", "entry_names": ["scale"]},
    {"op": "load", "code": SCALE, "path": "/x.py", "entry_names": ["scale"]},
    {"op": "load", "code": SCALE, "entry_names": []},
    {"op": "run_cases", "handle": 99, "device": "cpu", "cases": []},
    {"op": "run_cases", "handle": 1, "device": "tpu", "cases": []},
    {"op": "run_cases", "handle": 1, "device": "cpu", "cases": [{"index": 0}]},
    {"op": "run_cases", "handle": 1, "device": "cuda", "cases": []},
    {"op": "time", "handle": 1, "device": "cpu", "workloads": [], "settings": {"budget_ms": -1}},
    {"op": "run_cases", "handle": 1, "device": "cpu",
     "cases": [{"index": 0, "seed": 1, "then": "_private"}]},
    {"op": "run_cases", "handle": 1, "device": "cpu",
     "cases": [{"index": 0, "seed": 1, "then_calls": 2}]},
    {"op": "run_cases", "handle": 1, "device": "cpu",
     "cases": [{"index": 0, "seed": 1, "then": "step", "then_calls": 0}]},
    {"op": "run_cases", "handle": 1, "device": "cpu",
     "cases": [{"index": 0, "seed": 1, "draw_on_device": "yes"}]},
])
def test_malformed_requests_get_protocol_errors_and_the_loop_goes_on(reference, request_header):
    load_scale(reference)
    reply = reference.request(request_header).header
    assert reply["op"] == "error" and reply["error"]["kind"] == "protocol_error", reply
    assert reply["request"] == request_header["op"]
    assert run(reference, 1, [scale_case(0, 1.0)]).header["results"][0]["status"] == "ok"


def test_a_header_that_is_not_json_gets_a_protocol_error(reference):
    reference.sock.sendall(PREFIX.pack(5, 0) + b"nope!")
    reply = reference.reader.read().header
    assert reply["op"] == "error" and reply["error"]["kind"] == "protocol_error"
    assert reply["request"] is None
    load_scale(reference)


def test_time_on_a_cpu_worker_reports_each_workload(reference):
    handle = load_scale(reference)
    reply = reference.request({"op": "time", "handle": handle, "device": "cpu",
                               "workloads": [{"index": 0, "seed": 1, "args": [1, 2]}],
                               "settings": {}}).header
    assert reply["op"] == "timings"
    assert reply["results"][0]["status"] == "error"
    assert reply["results"][0]["error"]["message"] == "timing needs a CUDA device"


def test_after_a_gpu_fault_the_worker_refuses_more_work(reference):
    handle = load_scale(reference, FAULTY)
    first = run(reference, handle, [scale_case(0, 1.0), scale_case(1, 1.0)]).header["results"]
    assert first[0]["error"]["kind"] == "gpu_fault" and first[1]["status"] == "not_run"
    again = run(reference, handle, [scale_case(5, 1.0), scale_case(6, 1.0)]).header["results"]
    assert again[0]["status"] == "error" and again[0]["error"]["kind"] == "gpu_fault"
    assert again[1] == {"index": 6, "status": "not_run"}
    reload = reference.request({"op": "load", "code": SCALE, "entry_names": ["scale"]}).header
    assert reload["ok"] is False and reload["error"]["kind"] == "gpu_fault"


def test_a_submission_calling_sys_exit_does_not_end_the_worker(reference):
    handle = load_scale(reference, "import sys\n\ndef scale(x, factor):\n    sys.exit(4)\n")
    result = run(reference, handle, [scale_case(0, 1.0)]).header["results"][0]
    assert result["error"]["type"] == "SystemExit"
    assert run(reference, handle, [scale_case(1, 1.0)]).op == "cases"


def test_gpu_requests_hand_cached_memory_back_unless_the_gpu_is_dead(monkeypatch, launches):
    from kbx_worker import timing
    calls: list[int] = []
    monkeypatch.setattr(timing, "_empty_cache", lambda: calls.append(1))
    ours, theirs = socket.socketpair()
    worker = Worker(theirs, "reference", "cuda", None, launches)
    worker._release_gpu_memory("cpu")
    assert calls == []
    worker._release_gpu_memory("cuda")
    assert calls == [1]

    def dead():
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(timing, "_empty_cache", dead)
    worker._release_gpu_memory("cuda")  # the reply stands; the worker now knows the GPU is dead
    assert worker._gpu_dead
    monkeypatch.setattr(timing, "_empty_cache", lambda: calls.append(1))
    worker._release_gpu_memory("cuda")
    assert calls == [1]
    ours.close()
    theirs.close()
