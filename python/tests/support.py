"""Helpers for tests that drive real worker processes over socket pairs."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys

from kbx_worker.protocol import FrameReader, send_frame_with_fd, write_frame

TIMEOUT_S = 60
PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent


class Peer:
    """One end of a socket pair, reading frames with a timeout."""

    def __init__(self, sock: socket.socket, accept_fds: bool = False):
        sock.settimeout(TIMEOUT_S)
        self.sock = sock
        self.reader = FrameReader(sock, accept_fds=accept_fds)

    def send(self, header: dict) -> None:
        write_frame(self.sock, header)

    def read(self):
        return self.reader.read()

    def request(self, header: dict):
        self.send(header)
        return self.read()


def worker_env(interpret: bool = True) -> dict:
    """This environment, with the package importable and TRITON_INTERPRET set as asked."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PYTHON_DIR), env.get("PYTHONPATH")) if p)
    env["TRITON_INTERPRET"] = "1" if interpret else "0"
    return env


def spawn_zygote(cwd, interpret: bool = True) -> tuple[subprocess.Popen, Peer]:
    """`python -m kbx_worker zygote` on one end of a socket pair; returns it and the other end."""
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbx_worker", "zygote", "--control-fd", str(theirs.fileno())],
        pass_fds=[theirs.fileno()], env=worker_env(interpret), cwd=cwd)
    theirs.close()
    return proc, Peer(ours)


def fork(control: Peer, log_path, fork_id: int, **overrides) -> tuple[Peer, int]:
    """Asks the zygote for a worker; returns our end of its socket and its pid."""
    ours, theirs = socket.socketpair()
    header = {"op": "fork", "id": fork_id, "role": "candidate", "device": "cpu", "gpu": 0,
              "log_path": str(log_path), "threads": 1, **overrides}
    send_frame_with_fd(control.sock, header, theirs.fileno())
    theirs.close()
    forked = control.read().header
    assert forked["op"] == "forked" and forked["id"] == fork_id, forked
    return Peer(ours), forked["pid"]
