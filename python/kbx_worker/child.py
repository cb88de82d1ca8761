"""Sets up a worker process (session, death signal, log, device), says ready, then serves."""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

from . import compile_cache, env, inventory
from .errors import WorkerError, error_object
from .protocol import FrameReader, write_frame
from .sandbox import SandboxConfig, confine
from .worker import Worker

_PR_SET_PDEATHSIG = 1
_FALLBACK_L2_BYTES = 128 << 20
ROLES = ("candidate", "reference")
DEVICES = ("cuda", "cpu")


@dataclass
class WorkerConfig:
    """What a fork request (or `serve`'s flags) asks of a worker."""

    role: str
    device: str
    gpu: int | None = None
    log_path: str | None = None
    threads: int | None = None
    sandbox: SandboxConfig | None = None
    # Ask kbx for the GPU lock, shared, around the CUDA context's creation (ContextHold).
    context_hold: bool = False

    @classmethod
    def from_request(cls, header: dict) -> "WorkerConfig":
        config = cls(header.get("role"), header.get("device"), header.get("gpu"),
                     header.get("log_path"), header.get("threads"),
                     SandboxConfig.from_request(header.get("sandbox")),
                     header.get("context_hold", False))
        config.validate()
        return config

    def validate(self) -> None:
        if self.role not in ROLES:
            raise _bad(f"role must be one of {ROLES}, got {self.role!r}")
        if self.device not in DEVICES:
            raise _bad(f"device must be one of {DEVICES}, got {self.device!r}")
        if self.gpu is not None and not _is_int(self.gpu, minimum=0):
            raise _bad(f"gpu must be a non-negative integer, got {self.gpu!r}")
        if self.threads is not None and not _is_int(self.threads, minimum=1):
            raise _bad(f"threads must be a positive integer, got {self.threads!r}")
        if self.log_path is not None and not isinstance(self.log_path, str):
            raise _bad("log_path must be a string")
        if not isinstance(self.context_hold, bool):
            raise _bad(f"context_hold must be true or false, got {self.context_hold!r}")


@dataclass
class DeviceState:
    """What device initialisation made: the ready message's description and the L2-flush buffer."""

    kind: str
    description: dict
    flush_buffer: Any = None
    recorder: Any = None  # the kernel inventory's (inventory.Recorder), None when off
    inventory: str = "off: not a CUDA worker"


def run_forked(sock_fd: int, config: WorkerConfig, close_fds: list[int],
               launches: Callable[[], int], zygote_pid: int) -> int:
    """The forked child's life: detach from the zygote, then serve. Returns the exit code."""
    started = time.perf_counter()
    sock = socket.socket(fileno=sock_fd)
    try:
        _detach(close_fds, zygote_pid)
    except BaseException as e:  # noqa: BLE001 - a failed start is reported, not raised
        _say_ready(sock, config, {"error": error_object(e)})
        return 1
    return serve(sock, config, launches, started)


def _detach(close_fds: list[int], zygote_pid: int) -> None:
    """Own session and process group, death with the zygote, none of the zygote's descriptors."""
    os.setsid()
    _set_parent_death_signal()
    if os.getppid() != zygote_pid:
        raise RuntimeError("the zygote died while this worker was starting")
    for fd in close_fds:
        _close_quietly(fd)
    _stdin_from_devnull()


def serve(sock: socket.socket, config: WorkerConfig, launches: Callable[[], int],
          started: float) -> int:
    """Redirects output, initialises the device, says ready and runs the request loop. The ready
    message's `phases_ms` says where the start went (informative: `kbx eval --trace` puts it on
    the pool's worker-start span): `detach` (from the fork to here), `setup` (the log, the
    inventory's libraries), `confine`, then init_device's phases."""
    confinement = None
    phases: dict[str, float] = {"detach": (time.perf_counter() - started) * 1e3}
    try:
        mark = time.perf_counter()
        redirect_output(config.log_path)
        # The inventory's libraries are mapped while every file is still readable; CUPTI starts
        # after the confinement (which wants one thread) and before CUDA does.
        libraries = inventory.preload() if config.device == "cuda" else None
        phases["setup"] = (time.perf_counter() - mark) * 1e3
        if config.sandbox is not None:
            mark = time.perf_counter()
            # Still single-threaded here: namespaces and Landlock cover every thread made later.
            confinement = confine(config.sandbox, config.device)
            if "compile_cache" in confinement and confinement["compile_cache"].startswith("on"):
                compile_cache.Client(config.sandbox.compile_cache, config.sandbox.inbox).install()
            phases["confine"] = (time.perf_counter() - mark) * 1e3
        hold = ContextHold(sock) if config.context_hold else None
        state = init_device(config, libraries, phases, hold)
    except BaseException as e:  # noqa: BLE001 - a failed start is reported, not raised
        _say_ready(sock, config, {"error": error_object(e)})
        return 1
    warm_ms = (time.perf_counter() - started) * 1e3
    fields = {"device": state.description, "warm_ms": round(warm_ms, 3),
              "phases_ms": {k: round(v, 3) for k, v in phases.items()}}
    if confinement is not None:
        confinement["kernel_inventory"] = state.inventory
        fields["sandbox"] = confinement
    if not _say_ready(sock, config, fields):
        return 1
    if state.recorder is not None and hasattr(launches, "tag_with"):
        launches.tag_with(state.recorder)
    return Worker(sock, config.role, state.kind, state.flush_buffer, launches,
                  state.recorder).serve()


def redirect_output(log_path: str | None) -> None:
    """Points fds 1 and 2 (and sys.stdout/stderr, line-buffered) at `log_path`."""
    if not log_path:
        return
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = _line_buffered(1)
    sys.stderr = _line_buffered(2)
    faulthandler.enable(file=sys.stderr)


class ContextHold:
    """The start's GPU hold, asked of kbx over the worker's socket before it says ready: `take`
    writes {"op": "hold"} and waits for {"op": "held"} (kbx has taken the GPU lock shared: no
    timing run is under way, and none starts until `give`); `give` writes {"op": "unhold"}.

    Only the CUDA context's creation needs it: a context being created beside a timing run slows
    large GPU-bound workloads' samples (sessions 35 and 36's suite runs; tune/start_overlap.py,
    tune/start_phases.py), while the kernel inventory's start, Triton's driver glue and a
    process's exit do not. Holding only that part keeps the rest of a start (about a fifth of it
    on session 36's H100) out of the timing runs' way."""

    def __init__(self, sock: socket.socket):
        self._sock = sock

    def take(self) -> None:
        write_frame(self._sock, {"op": "hold"})
        # Nothing else is in flight: kbx sends its first request only after `ready`.
        frame = FrameReader(self._sock).read()
        if frame is None or frame.op != "held":
            raise _bad("expected 'held' from kbx, got "
                       + (repr(frame.op) if frame is not None else "the socket closed"))

    def give(self) -> None:
        write_frame(self._sock, {"op": "unhold"})


def init_device(config: WorkerConfig, libraries: Any = None,
                phases: dict[str, float] | None = None,
                hold: ContextHold | None = None) -> DeviceState:
    """Sets threads and, for CUDA, starts the kernel inventory, then makes the context and the
    flush buffer (the L2 size) under `hold` (when given), then loads Triton's driver glue.
    Into `phases` (ms): `cupti` (the inventory's start), `hold_wait` (until kbx granted the hold),
    `cuda_context`, `flush_buffer` (allocated), `triton_driver`. On the CPU there is no context:
    the hold is taken and given back at once (the same frames, so the CPU path tests them)."""
    import torch

    phases = {} if phases is None else phases

    def phase(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        phases[name] = (now - mark) * 1e3
        mark = now

    if config.threads:
        torch.set_num_threads(config.threads)
    # float32 is float32-exact in every worker: no TF32 in cuBLAS matmuls or cuDNN convolutions
    # (cuDNN's default would be TF32), so references are exact and a candidate's PyTorch calls run
    # the same arithmetic as the reference they are timed against.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if config.device != "cuda":
        if hold is not None:
            hold.take()
            hold.give()
        return DeviceState("cpu", env.describe_cpu(torch.get_num_threads()))
    if config.gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(config.gpu)
    mark = time.perf_counter()
    recorder, status = inventory.start(libraries)
    phase("cupti")
    if hold is not None:
        hold.take()
        phase("hold_wait")
    torch.cuda.init()
    torch.cuda.set_device(0)
    l2_bytes = env.l2_cache_bytes(torch.cuda.get_device_properties(0)) or _FALLBACK_L2_BYTES
    torch.cuda.synchronize()  # the context exists only once something has used it
    phase("cuda_context")
    # Allocated, not written: a start runs no kernel of its own (kbx eval --worker-start-hold
    # none), and every time request's spin-up zeroes the buffer before its first sample.
    flush_buffer = torch.empty(l2_bytes, dtype=torch.uint8, device="cuda")
    phase("flush_buffer")
    if hold is not None:
        hold.give()
    _warm_triton_driver()
    torch.cuda.synchronize()
    phase("triton_driver")
    return DeviceState("cuda", env.describe_cuda(config.gpu or 0), flush_buffer, recorder, status)


def _warm_triton_driver() -> None:
    """Loads Triton's CUDA driver glue now, so a candidate's first launch does not pay for it."""
    if env.triton_interpret():
        return
    try:
        from triton.runtime import driver

        device = driver.active.get_current_device()
        driver.active.get_current_stream(device)
    except Exception:  # noqa: BLE001 - a broken driver fails again, classified, at the first launch
        pass


def _say_ready(sock: socket.socket, config: WorkerConfig, fields: dict) -> bool:
    header = {"op": "ready", "pid": os.getpid(), "role": config.role, **fields}
    try:
        write_frame(sock, header)
    except OSError:
        return False
    return True


def _set_parent_death_signal() -> None:
    """Asks Linux to SIGKILL this process when the zygote dies (PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_PDEATHSIG): {os.strerror(err)}")


def _stdin_from_devnull() -> None:
    fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)


def _line_buffered(fd: int):
    return open(fd, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _bad(message: str) -> WorkerError:
    return WorkerError("protocol_error", message)


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum
