"""The zygote: imports torch and Triton once, then forks a worker child for each fork request.

It never initialises CUDA and never runs reference or candidate code. It reaps its children and
reports each exit; when the control socket closes (or on `shutdown`) it kills them and exits.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import socket
import sys
import tempfile
import time
import traceback
from typing import Callable

from . import PROTOCOL_VERSION, env, hooks, provenance, sandbox
from .child import WorkerConfig, run_forked  # imports torch, and captures the timing functions
from .errors import WorkerError, error_object
from .protocol import FrameReader, ProtocolError, write_frame

_POLL_SECONDS = 1.0  # reaping also runs this often, in case a SIGCHLD wake-up was missed


def main(control_fd: int, watch=None) -> int:
    """Finishes the imports a worker needs, says hello on `control_fd`, serves fork requests.
    `watch` (a StartupWatch, which ends the process if kbx goes away during the imports) is
    stopped before the hello; from then on the serve loop notices a closed socket."""
    _preload_triton()
    provenance.warm_up()
    launches = hooks.install()
    if watch is not None:
        watch.stop()
    sock = socket.socket(fileno=control_fd)
    zygote = Zygote(sock, launches)
    write_frame(sock, {"op": "hello", "protocol": PROTOCOL_VERSION, "pid": os.getpid(),
                       "env": env.describe_env()})
    gc.collect()
    gc.freeze()  # objects made so far stay shared with the children instead of being copied
    return zygote.serve()


def _preload_triton() -> None:
    """Imports the Triton modules a child would otherwise import on its first kernel."""
    import triton.compiler  # noqa: F401
    import triton.language  # noqa: F401

    try:
        import triton.runtime.interpreter  # noqa: F401
    except ImportError:
        pass
    if not env.triton_interpret():
        # Triton's own version key hashes libtriton (about 400 MB) once per process, on the first
        # compile or cache lookup: computed here, every forked worker inherits it.
        from triton.runtime.cache import triton_key

        triton_key()
        import triton.backends.nvidia.driver  # noqa: F401


class Zygote:
    """Owns the control socket and the children; single-threaded, driven by select()."""

    def __init__(self, sock: socket.socket, launches: Callable[[], int]):
        self._sock = sock
        self._reader = FrameReader(sock, accept_fds=True)
        self._launches = launches
        self._children: set[int] = set()
        self._uids: dict[int, int] = {}  # child -> the uid of its own it was given (as root)
        self._harvest = Harvests(self._inherited_fds)
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def serve(self) -> int:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # kbx handles ^C and then closes the socket
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)
        try:
            while self._step():
                pass
        finally:
            signal.set_wakeup_fd(-1)
            self._kill_children()
        return 0

    def _step(self) -> bool:
        """Waits for a request or a child's exit; False when the zygote should exit."""
        readable, _, _ = select.select([self._sock, self._wake_r], [], [], _POLL_SECONDS)
        if self._wake_r in readable:
            _drain(self._wake_r)
        if not self._reap():
            return False
        if self._sock in readable:
            return self._read_requests()
        return True

    def _read_requests(self) -> bool:
        """Handles every frame now available; False on end of stream, shutdown or a lost stream."""
        while True:
            try:
                frame = self._reader.read()
            except ProtocolError as e:
                self._send_error(None, None, WorkerError("protocol_error", str(e)))
                if e.fatal:
                    return False
                continue
            if frame is None or frame.op == "shutdown":
                return False
            if not self._handle(frame.header):
                return False
            if not self._reader.frame_buffered():
                return True

    def _handle(self, header: dict) -> bool:
        if header["op"] != "fork":
            return self._send_error(header["op"], header, WorkerError(
                "protocol_error", f"unknown op {header['op']!r} on the control socket"))
        return self._fork(header)

    def _fork(self, header: dict) -> bool:
        fd = self._reader.take_fd()
        try:
            if fd is None:
                raise WorkerError("protocol_error", "a fork request came without a descriptor")
            if not isinstance(header.get("id"), int):
                raise WorkerError("protocol_error", "a fork request needs an integer 'id'")
            config = WorkerConfig.from_request(header)
        except WorkerError as e:
            if fd is not None:
                os.close(fd)
            return self._send_error("fork", header, e)
        try:
            pid = self._spawn(fd, config)
        except OSError as e:  # fork() refused (no memory, process limit): the zygote carries on
            return self._send_error("fork", header, e)
        finally:
            os.close(fd)
        self._children.add(pid)
        if config.sandbox is not None and config.sandbox.uid and os.getuid() == 0:
            self._uids[pid] = config.sandbox.uid
        if config.sandbox is not None and config.sandbox.compile_cache and config.device == "cuda":
            self._harvest.expect(pid, config.sandbox.compile_cache)
        return self._send({"op": "forked", "id": header["id"], "pid": pid})

    def _spawn(self, fd: int, config: WorkerConfig) -> int:
        _flush_quietly()
        zygote_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            self._become_child(fd, config, zygote_pid)
        return pid

    def _become_child(self, fd: int, config: WorkerConfig, zygote_pid: int) -> None:
        """Runs in the forked child and never returns."""
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            code = run_forked(fd, config, self._inherited_fds(), self._launches, zygote_pid)
        except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
            traceback.print_exc()
        finally:
            _flush_quietly()
            os._exit(code)

    def _inherited_fds(self) -> list[int]:
        """The zygote's descriptors, which every process it forks closes."""
        return [self._sock.fileno(), self._wake_r, self._wake_w, *self._reader.fds]

    def _reap(self) -> bool:
        """Reports every child that has ended; False when the control socket is gone."""
        while self._children or self._harvest.running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid == 0:
                return True
            if self._harvest.ended(pid):
                continue
            if pid in self._children:
                self._children.discard(pid)
                _remove_cgroup(pid)
                _kill_uid(self._uids.pop(pid, None), keep=self._children)
                self._harvest.worker_ended(pid)
                if not self._send(_exited(pid, status)):
                    return False
        return True

    def _kill_children(self) -> None:
        self._harvest.stop()
        for pid in list(self._children):
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for pid in list(self._children):
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            self._children.discard(pid)
            _remove_cgroup(pid)
            _kill_uid(self._uids.pop(pid, None))

    def _send_error(self, request: str | None, header: dict | None, exc: BaseException) -> bool:
        reply = {"op": "error", "request": request, "error": error_object(exc)}
        if header is not None and "id" in header:
            reply["id"] = header["id"]
        return self._send(reply)

    def _send(self, header: dict) -> bool:
        try:
            write_frame(self._sock, header)
        except OSError:
            return False
        return True


class Harvests:
    """The compile cache's harvesters (compile_cache.harvest): after a candidate worker that
    shared compiles exits, a process forked from the zygote (trusted: it never runs candidate
    code) compiles what the worker claimed, at low priority, a few at a time. The first worker of
    a cache root also gets one that only primes the root (compile_cache.prime: Triton's driver
    module, cuda_utils), so the workers after it load the module instead of each building it with
    the C compiler as its start warms Triton's driver (child._warm_triton_driver). Before, only a
    harvest primed it, and a run whose candidates compile nothing (the references as
    submissions) never had one: every worker built it."""

    def __init__(self, inherited: Callable[[], list[int]]):
        self._inherited = inherited
        self._expected: dict[int, str] = {}     # worker pid -> cache root
        # (root, inbox) waiting for a harvester; inbox None: prime the root only
        self._queue: list[tuple[str, str | None]] = []
        self._primed: set[str] = set()  # roots a priming harvester was queued for
        # harvester pid -> its work folder, made here and removed here once it ends (the confined
        # harvester may empty it but not remove it from the temporary folder)
        self.running: dict[int, str] = {}
        self._limit = max(1, (os.cpu_count() or 1) // 8)

    def expect(self, pid: int, root: str) -> None:
        self._expected[pid] = root
        if root not in self._primed:
            self._primed.add(root)
            self._queue.append((root, None))
            self._start()

    def worker_ended(self, pid: int) -> None:
        from . import compile_cache

        root = self._expected.pop(pid, None)
        if root is None:
            return
        inbox = compile_cache.inbox_path(root, os.getpid(), pid)
        try:
            claims = bool(os.listdir(inbox))
        except OSError:
            return
        if not claims:  # a worker that compiled nothing new (or never ran a candidate)
            _remove_tree(inbox)
            return
        if len(self._queue) >= 256:  # far behind: the oldest claims go uncompiled
            _remove_tree(self._queue.pop(0)[1])
        self._queue.append((root, inbox))
        self._start()

    def ended(self, pid: int) -> bool:
        if pid not in self.running:
            return False
        _remove_tree(self.running.pop(pid))
        self._start()
        return True

    def _start(self) -> None:
        while self._queue and len(self.running) < self._limit:
            root, inbox = self._queue.pop(0)
            work = tempfile.mkdtemp(prefix="kbx-harvest-")
            _flush_quietly()
            try:
                pid = os.fork()
            except OSError:
                _remove_tree(inbox)
                _remove_tree(work)
                continue
            if pid == 0:
                _run_harvest(root, inbox, work, self._inherited())
            self.running[pid] = work

    def stop(self) -> None:
        for pid, work in list(self.running.items()):
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (OSError, ChildProcessError):
                pass
            _remove_tree(work)
        self.running.clear()


def _run_harvest(root: str, inbox: str | None, work: str, inherited: list[int]) -> None:
    """The harvester's life (never returns): detached, niced, allowed to write only the cache and
    its own work folder, then compile_cache.harvest (unless `inbox` is None: priming only) and
    prime."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        for fd in inherited:
            try:
                os.close(fd)
            except OSError:
                pass
        os.nice(10)
        from . import compile_cache

        os.environ["TMPDIR"] = work  # the C compiler's and ptxas's temporary files
        tempfile.tempdir = None
        sandbox.confine_writes(work, (root,))
        counts = compile_cache.harvest(root, inbox, work) if inbox is not None else "none"
        prime = compile_cache.prime(root, work)
        print(f"kbx harvest {inbox or root}: {counts}, driver module {prime}", file=sys.stderr,
              flush=True)
        code = 0
    except BaseException:  # noqa: BLE001 - the harvester must end here, whatever happened
        traceback.print_exc()
    finally:
        _remove_tree(work)  # its contents; the zygote removes the folder once this process ends
        _flush_quietly()
        os._exit(code)


def _remove_tree(path: str | None) -> None:
    import shutil

    if path is None:  # a priming harvester's inbox: there is none
        return
    shutil.rmtree(path, ignore_errors=True)


def _remove_cgroup(pid: int) -> None:
    """Removes the pids cgroup a sandboxed child made for itself (empty once it has exited)."""
    path = sandbox.pids_cgroup_of(pid)
    if path is None or not os.path.isdir(path):
        return
    for _ in range(3):
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                members = [int(p) for p in f.read().split()]
        except OSError:
            members = []
        for member in members:  # what the worker left behind, even outside its process group
            try:
                os.kill(member, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.05)


def processes_of_uid(uid: int, proc: str = "/proc") -> list[int]:
    """The processes whose real uid is `uid` (the Uid line of /proc/<pid>/status)."""
    pids = []
    try:
        names = os.listdir(proc)
    except OSError:
        return pids
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(proc, name, "status"), "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            pids.append(int(name))
                        break
        except (OSError, ValueError, IndexError):
            continue
    return sorted(pids)


def _kill_uid(uid: int | None, proc: str = "/proc", keep: set[int] | frozenset = frozenset()
              ) -> None:
    """Kills what a worker that ran under a uid of its own left behind (a child in a session of
    its own, which the kill of the worker's process group misses): every process of that uid but
    the zygote's live workers in `keep` (one of an earlier turn of the uid block, sandbox_uid).
    The uid is the worker's (WorkerPool gives each worker its own), never root's or the zygote's."""
    if not uid or uid == os.getuid():
        return
    for _ in range(3):
        left = [pid for pid in processes_of_uid(uid, proc) if pid not in keep]
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def _exited(pid: int, status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"op": "exited", "pid": pid, "exit_code": None, "signal": os.WTERMSIG(status)}
    return {"op": "exited", "pid": pid, "exit_code": os.WEXITSTATUS(status), "signal": None}


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def _flush_quietly() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - exiting anyway
            pass
