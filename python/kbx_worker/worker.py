"""A worker's request loop: answers load, run_cases and time, one reply per request, in order."""

from __future__ import annotations

import socket
import sys
from typing import Any, Callable

from . import baselines, executor, messages, sandbox, timing
from .errors import WorkerError, error_object, is_gpu_fault, make_error
from .protocol import FrameReader, ProtocolError, write_frame

Reply = tuple[dict, list]  # header, payload buffers

_GPU_DEAD = "an earlier CUDA error killed this worker's context; it runs no more GPU work"


class Worker:
    """Serves one socket. Never lets an exception escape: every failure becomes a reply."""

    def __init__(self, sock: socket.socket, role: str, device: str, flush_buffer: Any,
                 launches: Callable[[], int], recorder: Any = None):
        self._sock = sock
        self._reader = FrameReader(sock)
        self._role = role
        self._device = device
        self._flush_buffer = flush_buffer
        self._launches = launches
        self._recorder = recorder  # the kernel inventory's (inventory.Recorder) or None
        self._modules: dict[int, executor.Loaded] = {}
        self._builders: dict[str, Any] = {}
        self._next_handle = 1
        self._gpu_dead = False
        self._handlers: dict[str, Callable[[dict], Reply]] = {
            "load": self._load, "run_cases": self._run_cases, "time": self._time,
            "canonicalize": self._canonicalize}
        self._payload = b""  # the payload of the request being answered
        self._state = sandbox.torch_state() if role == "candidate" else None

    def serve(self) -> int:
        """Answers requests until `exit` or end of stream; returns the process exit code."""
        while True:
            try:
                frame = self._reader.read()
            except ProtocolError as e:
                if not self._send(_error_reply(None, WorkerError("protocol_error", str(e))), None):
                    return 1
                if e.fatal:
                    return 1
                continue
            except OSError:
                return 1
            if frame is None or frame.op == "exit":
                return 0
            self._payload = frame.payload
            if not self._send(self._answer(frame.header), frame.op):
                return 1

    def _answer(self, header: dict) -> Reply:
        op = header["op"]
        try:
            handler = self._handlers.get(op)
            if handler is None:
                raise WorkerError("protocol_error", f"unknown op {op!r}")
            reply = handler(header)
        except BaseException as e:  # noqa: BLE001 - the loop must survive anything a request does
            self._note_fault(e)
            reply = _error_reply(op, e)
        finally:
            _flush_stdio()
        return self._check_state(op, reply)

    def _check_state(self, op: str, reply: Reply) -> Reply:
        """A candidate that changed torch's numerics flags gets a `tampered` error instead."""
        if self._state is None:
            return reply
        try:
            changed = sandbox.changed_state(self._state, sandbox.torch_state())
        except BaseException as e:  # noqa: BLE001 - a broken torch is tampering too
            changed = [f"reading the flags failed: {e!r}"]
        if not changed:
            return reply
        return _error_reply(op, WorkerError(
            "tampered", "the candidate changed torch's global flags: " + "; ".join(changed)))

    def _load(self, header: dict) -> Reply:
        request = messages.parse_load(header)
        if self._role == "candidate" and self._modules:
            raise WorkerError("protocol_error", "a candidate worker loads exactly one module")
        if self._gpu_dead:
            return _loaded_error(make_error("gpu_fault", _GPU_DEAD)), []
        try:
            loaded = self._load_module(request)
        except BaseException as e:  # noqa: BLE001 - the module's failure is the reply
            self._note_fault(e)
            return _loaded_error(error_object(e)), []
        handle, self._next_handle = self._next_handle, self._next_handle + 1
        self._modules[handle] = loaded
        return {"op": "loaded", "ok": True, "handle": handle, "entry": loaded.entry_name}, []

    def _load_module(self, request: messages.LoadRequest) -> executor.Loaded:
        builders = self._builders_module(request.builders_path, request.builders_code)
        source = request.source_code
        if source is None:
            source = executor.read_source(request.path)
        prefix = "kbx_candidate" if self._role == "candidate" else "kbx_reference"
        module = executor.load_source(source, request.filename, prefix)
        name, entry = executor.find_entry(module, request.entry_names)
        return executor.Loaded(module, name, entry, builders)

    def _builders_module(self, path: str | None, code: str | None = None) -> Any:
        if path and path not in self._builders:
            self._builders[path] = executor.load_builders(path, code)
        return self._builders.get(path) if path else None

    def _run_cases(self, header: dict) -> Reply:
        request = messages.parse_run_cases(header)
        loaded = self._module(request.handle)
        device = self._check_device(request.device)
        if self._gpu_dead:
            return _dead_cases(request.items), []
        run = executor.run_cases(loaded, device, request.items, self._launches,
                                 track=self._role == "candidate", recorder=self._recorder)
        self._gpu_dead |= run.gpu_fault
        self._release_gpu_memory(device)  # the outputs are on the host by now
        reply = {"op": "cases", "results": run.results, "triton_launches": run.triton_launches}
        return reply, run.payload.views

    def _canonicalize(self, header: dict) -> Reply:
        """Canonical forms of another process's outputs: a trusted reference worker's job only."""
        if self._role != "reference":
            raise WorkerError("protocol_error", "only a reference worker canonicalizes outputs")
        request = messages.parse_canonicalize(header)
        loaded = self._module(request.handle)
        device = self._check_device(request.device)
        run = executor.canonicalize(loaded, device, request.items, self._payload)
        return {"op": "canonical", "results": run.results}, run.payload.views

    def _time(self, header: dict) -> Reply:
        request = messages.parse_time(header)
        settings = timing.Settings.from_request(header.get("settings", {}))
        baseline = None
        if "baseline" in header:  # torch.compile of the reference: kbx_worker/baselines.py
            if self._role != "reference":
                raise WorkerError("protocol_error", "only a reference worker times a baseline")
            baseline = baselines.Baseline.from_request(header["baseline"])
        loaded = self._module(request.handle)
        device = self._check_device(request.device)
        if self._gpu_dead and device == "cuda":
            dead = make_error("gpu_fault", _GPU_DEAD)
            results = [{"index": w["index"], "status": "error", "error": dead}
                       for w in request.items]
        elif baseline is not None:
            results, fault = baselines.time_workloads(loaded.entry, loaded.builders, device,
                                                      request.items, settings, self._flush_buffer,
                                                      self._recorder, baseline)
            self._gpu_dead |= fault
        else:
            count = (timing.REFERENCE_INVENTORY_CALLS if self._role == "reference"
                     else timing.INVENTORY_CALLS)
            results, fault = timing.time_workloads(loaded.entry, loaded.builders, device,
                                                   request.items, settings, self._flush_buffer,
                                                   self._recorder, count)
            self._gpu_dead |= fault
        self._release_gpu_memory(device)
        return {"op": "timings", "results": results}, []

    def _module(self, handle: int) -> executor.Loaded:
        loaded = self._modules.get(handle)
        if loaded is None:
            raise WorkerError("protocol_error", f"no module is loaded under handle {handle}")
        return loaded

    def _check_device(self, device: str) -> str:
        if device == "cuda" and self._device != "cuda":
            raise WorkerError("protocol_error", "this worker was started without a CUDA device")
        return device

    def _release_gpu_memory(self, device: str) -> None:
        """Hands the caching allocator's free blocks back to the driver after a request that ran
        on the GPU (timing's captured torch.cuda.empty_cache, not whatever a candidate left in
        torch.cuda). Workers share the GPU: on an 80 GB H100 (session 35) the reference timing
        worker still held 26 GB after the suite's largest workloads, and candidates timed beside
        it ran out of memory on correct kernels. A few milliseconds a request."""
        if device != "cuda" or self._gpu_dead:
            return
        try:
            timing._empty_cache()
        except BaseException as e:  # noqa: BLE001 - the reply stands; a dead GPU is noted
            self._note_fault(e)

    def _note_fault(self, exc: BaseException) -> None:
        if is_gpu_fault(exc):
            self._gpu_dead = True

    def _send(self, reply: Reply, request_op: str | None) -> bool:
        """Writes the reply; False when the socket is gone (the worker then exits)."""
        header, payload = reply
        try:
            write_frame(self._sock, header, payload)
        except (ValueError, TypeError, ProtocolError) as e:  # the reply itself could not be encoded
            if header.get("op") == "error":
                return False
            return self._send(_error_reply(request_op, e), request_op)
        except OSError:
            return False
        return True


def _error_reply(request_op: str | None, exc: BaseException) -> Reply:
    return {"op": "error", "request": request_op, "error": error_object(exc)}, []


def _loaded_error(error: dict) -> dict:
    return {"op": "loaded", "ok": False, "error": error}


def _dead_cases(cases: list[dict]) -> dict:
    """A run_cases reply after a GPU fault: the first case fails, the rest do not run."""
    results = [{"index": c["index"], "status": "not_run"} for c in cases]
    if results:
        results[0] = {"index": cases[0]["index"], "status": "error", "time_ms": 0.0,
                      "triton_launches": 0, "error": make_error("gpu_fault", _GPU_DEAD)}
    return {"op": "cases", "results": results, "triton_launches": 0}


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - a submission may have replaced or closed them
            pass
