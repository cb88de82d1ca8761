"""Turns exceptions into the protocol's error objects {kind, type, message, traceback}."""

from __future__ import annotations

import errno
import os
import sys
import traceback
from typing import Iterator

from .values import InputError

TEXT_LIMIT_BYTES = 8 * 1024
KINDS = ("syntax_error", "import_error", "no_entry", "triton_compile_error", "gpu_fault",
         "out_of_memory", "input_error", "runtime_error", "protocol_error", "unsupported_output",
         "resource_limit", "tampered")

# Phrases of the CUDA errors after which the context is dead (cudaErrorIllegalAddress, ...).
_GPU_FAULT_PHRASES = (
    "illegal memory access",
    "misaligned address",
    # "triggered": every CUDA error torch raises ends "Compile with `TORCH_USE_CUDA_DSA` to enable
    # device-side assertions.", an out-of-memory as much as a dead context (session 35 on an H100:
    # three correct kernels' cases "crashed" for an allocation refused while other processes held
    # the memory).
    "device-side assert triggered",
    "unspecified launch failure",
    "illegal instruction",
    "invalid program counter",
    "hardware stack error",
    "an illegal address",
)


class WorkerError(Exception):
    """An error whose kind the worker already knows (no entry, a malformed request, ...)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def error_object(exc: BaseException, kind: str | None = None) -> dict:
    """The protocol's E for `exc`; `kind` overrides classification.

    A WorkerError raised `from` another exception reports that exception's type and traceback,
    with the WorkerError's text before its message.
    """
    origin, context = _origin(exc)
    message = ": ".join(context + [_safe_str(origin)])
    out = {
        "kind": kind or classify(exc),
        "type": type(origin).__name__,
        "message": _trim(message, keep="head"),
        "traceback": _trim(_format_traceback(origin), keep="tail"),
    }
    if out["kind"] == "resource_limit":
        out["limit"] = resource_limit(exc) or "unknown"
    return out


def _origin(exc: BaseException) -> tuple[BaseException, list[str]]:
    """The first non-WorkerError along `exc`'s causes, and the WorkerError texts before it."""
    context: list[str] = []
    current = exc
    while isinstance(current, WorkerError) and current.__cause__ is not None:
        text = _safe_str(current)
        if text:
            context.append(text)
        current = current.__cause__
    return current, context


def make_error(kind: str, message: str, type_name: str = "WorkerError") -> dict:
    """An E that no exception stands behind."""
    return {"kind": kind, "type": type_name, "message": _trim(message, keep="head"),
            "traceback": ""}


def classify(exc: BaseException) -> str:
    if isinstance(exc, WorkerError):
        return exc.kind
    if is_gpu_fault(exc):
        return "gpu_fault"
    if isinstance(exc, InputError):
        return "input_error"
    if _is_out_of_memory(exc):
        return "out_of_memory"
    if resource_limit(exc):
        return "resource_limit"
    if _is_triton_compile_error(exc):
        return "triton_compile_error"
    return "runtime_error"


_LIMIT_ERRNOS = {errno.EAGAIN: "processes", errno.EMFILE: "open_files", errno.EFBIG: "file_size"}


def resource_limit(exc: BaseException) -> str | None:
    """The sandbox limit `exc` (or what caused it) ran into: processes, open_files or file_size."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.errno in _LIMIT_ERRNOS:
            return _LIMIT_ERRNOS[e.errno]
        if isinstance(e, RuntimeError) and "can't start new thread" in _safe_str(e):
            return "processes"
    return None


def is_gpu_fault(exc: BaseException) -> bool:
    """True when `exc` (or what caused it) says the CUDA context died."""
    for e in _chain(exc):
        text = _safe_str(e).lower()
        if any(phrase in text for phrase in _GPU_FAULT_PHRASES):
            return True
    return False


def _is_out_of_memory(exc: BaseException) -> bool:
    torch = sys.modules.get("torch")
    oom_types: tuple = (MemoryError,)
    if torch is not None:
        oom_types += tuple(t for t in (getattr(torch, "OutOfMemoryError", None),
                                       getattr(torch.cuda, "OutOfMemoryError", None)) if t)
    return any(isinstance(e, oom_types) or (isinstance(e, RuntimeError) and
                                            _says_out_of_memory(_safe_str(e).lower()))
               for e in _chain(exc))


def _says_out_of_memory(text: str) -> bool:
    """The host's refusal, or the CUDA driver's (torch's AcceleratorError, Triton's launcher):
    cudaErrorMemoryAllocation leaves the context usable, unlike the faults above."""
    return ("can't allocate memory" in text
            or ("out of memory" in text and ("cuda error" in text or "error [cuda]" in text)))


def _is_triton_compile_error(exc: BaseException) -> bool:
    compile_types = _triton_compile_types()
    for e in _chain(exc):
        if compile_types and isinstance(e, compile_types):
            return True
        if _raised_in_triton_compiler(e):
            return True
    return False


def _triton_compile_types() -> tuple:
    if "triton" not in sys.modules:
        return ()
    try:
        from triton.compiler.errors import CompilationError
        from triton.runtime.errors import OutOfResources, PTXASError
    except ImportError:
        return ()
    return (CompilationError, OutOfResources, PTXASError)


def _raised_in_triton_compiler(exc: BaseException) -> bool:
    """True when a frame of the traceback is inside Triton's compile path."""
    triton = sys.modules.get("triton")
    root = os.path.dirname(getattr(triton, "__file__", "") or "")
    if not root:
        return False
    compiler_dir = os.path.join(root, "compiler") + os.sep
    backends_dir = os.path.join(root, "backends") + os.sep
    jit_file = os.path.join(root, "runtime", "jit.py")
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        path, name = frame.f_code.co_filename, frame.f_code.co_name
        if path.startswith(compiler_dir):
            return True
        if path.startswith(backends_dir) and os.path.basename(path) == "compiler.py":
            return True
        if path == jit_file and name == "_do_compile":
            return True
    return False


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then its causes and contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a hostile __str__ must not break error reporting
        return f"<unprintable {type(exc).__name__}>"


def _format_traceback(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:  # noqa: BLE001 - see _safe_str
        return ""


def _trim(text: str, keep: str) -> str:
    """`text` cut to TEXT_LIMIT_BYTES of UTF-8, keeping its head or its tail."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= TEXT_LIMIT_BYTES:
        return text
    marker = "\n[... trimmed ...]\n"
    room = TEXT_LIMIT_BYTES - len(marker)
    if keep == "head":
        return data[:room].decode("utf-8", errors="ignore") + marker
    return marker + data[-room:].decode("utf-8", errors="ignore")
