"""Real processes: a zygote forking workers over socket pairs, and `serve` on an inherited fd."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap

import pytest

from kbx_worker.protocol import send_frame_with_fd
from support import TIMEOUT_S, Peer, fork, spawn_zygote, worker_env
CANDIDATE = textwrap.dedent('''
    import os
    import torch
    import triton
    import triton.language as tl

    print("candidate imported")


    @triton.jit
    def _double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


    def double(x):
        print("candidate called with", tuple(x.shape))
        os.write(1, b"raw write to fd 1\\n")
        out = torch.empty_like(x)
        _double[(triton.cdiv(x.numel(), 16),)](x, out, x.numel(), BLOCK=16)
        return out
''')


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    proc, control = spawn_zygote(tmp_path_factory.mktemp("zygote"))
    hello = control.read().header
    yield control, hello, proc
    control.send({"op": "shutdown"})
    assert proc.wait(TIMEOUT_S) == 0
    control.sock.close()


def test_hello_describes_the_environment(zygote):
    _, hello, proc = zygote
    assert hello["op"] == "hello" and hello["protocol"] == 1 and hello["pid"] == proc.pid
    env = hello["env"]
    assert env["interpret"] is True
    assert {"python", "torch", "triton", "numpy", "platform", "hostname", "cuda_build"} <= set(env)


def test_forked_candidate_runs_a_triton_kernel_and_its_output_goes_to_the_log(zygote, tmp_path):
    control, _, _ = zygote
    log = tmp_path / "w1.log"
    worker, pid = fork(control, log, 1)
    ready = worker.read().header
    assert ready["op"] == "ready" and ready["pid"] == pid and ready["role"] == "candidate"
    assert ready["device"]["kind"] == "cpu" and ready["device"]["threads"] == 1
    loaded = worker.request({"op": "load", "code": CANDIDATE, "filename": "Math/double.py",
                             "entry_names": ["double"]}).header
    assert loaded["ok"], loaded
    frame = worker.request({"op": "run_cases", "handle": loaded["handle"], "device": "cpu",
                            "cases": [{"index": 0, "seed": 5, "args": [
                                {"tensor": {"shape": [40], "init": "ones"}}]}]})
    result = frame.header["results"][0]
    assert result["status"] == "ok" and result["triton_launches"] == 1, result
    assert frame.payload == struct.pack("<40f", *[2.0] * 40)
    text = log.read_text()
    assert "candidate imported" in text and "candidate called with (40,)" in text
    assert "raw write to fd 1" in text

    os.killpg(pid, signal.SIGKILL)
    exited = control.read().header
    assert exited == {"op": "exited", "pid": pid, "exit_code": None, "signal": signal.SIGKILL}
    assert worker.read() is None
    worker.sock.close()


def test_a_worker_told_to_exit_reports_exit_code_zero(zygote, tmp_path):
    control, _, _ = zygote
    worker, pid = fork(control, tmp_path / "w2.log", 2, role="reference")
    assert worker.read().header["op"] == "ready"
    worker.send({"op": "exit"})
    assert control.read().header == {"op": "exited", "pid": pid, "exit_code": 0, "signal": None}
    worker.sock.close()


def test_a_worker_asked_to_asks_for_the_gpu_hold_and_waits_for_it_before_ready(zygote, tmp_path):
    # context_hold: the child writes "hold", waits for "held", then "unhold" and "ready" (on the
    # CPU at once: no context to create, the same frames). Nothing comes before "held" is sent.
    control, _, _ = zygote
    worker, _ = fork(control, tmp_path / "w6.log", 6, context_hold=True)
    assert worker.read().header == {"op": "hold"}
    worker.sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        worker.sock.recv(1, socket.MSG_PEEK)
    worker.sock.settimeout(None)
    worker.send({"op": "held"})
    assert worker.read().header == {"op": "unhold"}
    assert worker.read().header["op"] == "ready"
    worker.send({"op": "exit"})
    assert control.read().header["op"] == "exited"
    worker.sock.close()


def test_a_worker_whose_hold_is_answered_wrongly_fails_its_start(zygote, tmp_path):
    control, _, _ = zygote
    worker, _ = fork(control, tmp_path / "w7.log", 7, context_hold=True)
    assert worker.read().header == {"op": "hold"}
    worker.send({"op": "load"})
    ready = worker.read().header
    assert ready["op"] == "ready" and ready["error"]["kind"] == "protocol_error"
    assert "expected 'held'" in ready["error"]["message"]
    assert control.read().header["op"] == "exited"
    worker.sock.close()
    ours, theirs = socket.socketpair()  # a context_hold that is not a boolean: refused
    send_frame_with_fd(control.sock, {"op": "fork", "id": 8, "role": "candidate", "device": "cpu",
                                      "context_hold": "yes"}, theirs.fileno())
    theirs.close()
    reply = control.read().header
    assert reply["op"] == "error" and "context_hold" in reply["error"]["message"]
    ours.close()


def test_a_bad_fork_request_gets_an_error_and_the_zygote_goes_on(zygote, tmp_path):
    control, _, _ = zygote
    ours, theirs = socket.socketpair()
    send_frame_with_fd(control.sock, {"op": "fork", "id": 3, "role": "judge", "device": "cpu"},
                       theirs.fileno())
    theirs.close()
    reply = control.read().header
    assert reply["op"] == "error" and reply["id"] == 3
    assert reply["error"]["kind"] == "protocol_error"
    assert ours.recv(1) == b""  # the zygote closed its copy of the descriptor
    ours.close()
    control.send({"op": "fork", "id": 4, "role": "candidate", "device": "cpu"})  # no descriptor
    assert control.read().header["error"]["kind"] == "protocol_error"
    worker, _ = fork(control, tmp_path / "w5.log", 5)
    assert worker.read().header["op"] == "ready"
    worker.send({"op": "exit"})
    assert control.read().header["op"] == "exited"
    worker.sock.close()


def test_control_socket_eof_makes_the_zygote_kill_its_children_and_exit(tmp_path):
    proc, control = spawn_zygote(tmp_path)
    assert control.read().header["op"] == "hello"
    worker, pid = fork(control, tmp_path / "w.log", 1)
    assert worker.read().header["op"] == "ready"
    control.sock.close()
    assert proc.wait(TIMEOUT_S) == 0
    assert worker.read() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    worker.sock.close()


def test_serve_runs_one_worker_on_an_inherited_descriptor(tmp_path):
    ours, theirs = socket.socketpair()
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbx_worker", "serve", "--fd", str(theirs.fileno()),
         "--role", "reference", "--device", "cpu", "--log-path", str(log), "--threads", "1"],
        pass_fds=[theirs.fileno()], env=worker_env(), cwd=tmp_path)
    theirs.close()
    worker = Peer(ours)
    assert worker.read().header["op"] == "ready"
    loaded = worker.request({"op": "load", "code": "def f():\n    print('hi')\n    return 1\n",
                             "entry_names": ["f"]}).header
    result = worker.request({"op": "run_cases", "handle": loaded["handle"], "device": "cpu",
                             "cases": [{"index": 0, "seed": 1, "args": []}]}).header
    assert result["results"][0]["outputs"] == [
        {"path": "out", "kind": "scalar", "dtype": "int64", "value": 1}]
    worker.send({"op": "exit"})
    assert proc.wait(TIMEOUT_S) == 0
    assert log.read_text() == "hi\n"
    ours.close()


def test_a_zygote_whose_kbx_goes_away_while_it_imports_exits_without_finishing_them(tmp_path):
    # kbx killed with SIGKILL during start-up: the zygote must not import on for seconds.
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbx_worker", "zygote", "--control-fd", str(theirs.fileno())],
        pass_fds=[theirs.fileno()], env=worker_env(), cwd=tmp_path, stderr=subprocess.PIPE,
        text=True)
    theirs.close()
    ours.close()
    _, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 1
    assert "kbx closed the control socket while the zygote was starting" in err, err


def _status(proc, pid, uid):
    d = proc / str(pid)
    d.mkdir(parents=True)
    (d / "status").write_text(f"Name:\tpython3\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t0\t0\t0\t0\n")


def test_what_a_worker_under_its_own_uid_left_behind_is_killed_with_it(tmp_path, monkeypatch):
    # A child in a session of its own outlives the kill of the worker's process group; under a
    # uid of its own (kbx as root) every process of that uid is the worker's, and goes with it.
    from kbx_worker import zygote

    proc = tmp_path / "proc"
    for pid, uid in ((1, 0), (50, 0), (200, 2000001), (201, 2000001), (300, 2000002)):
        _status(proc, pid, uid)
    (proc / "self").mkdir()
    assert zygote.processes_of_uid(2000001, str(proc)) == [200, 201]
    assert zygote.processes_of_uid(7, str(proc)) == []
    killed = []

    def kill(pid, sig):
        killed.append((pid, sig))
        (proc / str(pid) / "status").unlink()  # gone

    monkeypatch.setattr(zygote.os, "kill", kill)
    _status(proc, 202, 2000001)  # a live worker of the zygote's under the same uid: kept
    zygote._kill_uid(2000001, str(proc), keep={202})
    assert killed == [(200, signal.SIGKILL), (201, signal.SIGKILL)]
    assert zygote.processes_of_uid(2000001, str(proc)) == [202]
    killed.clear()
    zygote._kill_uid(None, str(proc))
    zygote._kill_uid(0, str(proc))
    zygote._kill_uid(os.getuid(), str(proc))  # never the zygote's own uid
    assert killed == []
    assert zygote.processes_of_uid(2000002, str(proc)) == [300]
