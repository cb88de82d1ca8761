"""The GPU kernel inventory: every kernel that ran, from CUPTI, by name, origin and GPU time.

libkbx_cupti (src/cupti/kbx_cupti.cpp, built beside the kbx binary; kbx passes its path in
KBX_CUPTI_LIBRARY) opens CUPTI's activity API before CUDA starts in the worker, so every kernel
the process runs, on any stream or thread, is recorded with device timestamps. Launches made
inside the Triton launch hook (hooks.py) are tagged "triton", the worker's own L2 flushes
"harness"; everything else (PyTorch, cuBLAS, cuDNN, a library) is "other". kbx judges the share of
GPU time Triton's kernels took and compares the kernels' busy time with the event timings.

This runs in the candidate's process: a candidate that calls into CUPTI itself can disturb it. It
raises the bar from "one launch happened" to "Triton's kernels took the GPU time", and its figures
are checked against kbx's own clock (docs/security.md).
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
from typing import Any, Callable

TRITON, HARNESS = 1, 2
ORIGINS = {0: "other", TRITON: "triton", HARNESS: "harness"}
MAX_NAMES = 64  # per inventory; the rest are summed into one "(other kernels)" entry
NAME_LIMIT = 256


class Recorder:
    """Handles on the loaded library, taken once before any submission code runs."""

    def __init__(self, lib: Any):
        self._push = lib.kbx_cupti_push
        self._pop = lib.kbx_cupti_pop
        self._flush = lib.kbx_cupti_flush
        self._clear = lib.kbx_cupti_clear
        self._count = lib.kbx_cupti_count
        self._get = lib.kbx_cupti_get
        self._dropped = lib.kbx_cupti_dropped
        self._record = lib.kbx_cupti_record
        self._timestamp = lib.kbx_cupti_timestamp
        self._timestamp.restype = ctypes.c_uint64
        self._name = ctypes.c_char_p()
        self._u64 = [ctypes.c_uint64(), ctypes.c_uint64()]
        self._u32 = [ctypes.c_uint32(), ctypes.c_uint32()]
        self._origin = ctypes.c_int()

    def push(self, tag: int) -> None:
        self._push(tag)

    def pop(self, tag: int) -> None:
        self._pop(tag)

    def clear(self) -> None:
        self._flush()
        self._clear()

    def records(self) -> list[tuple[str, int, int, int, int]]:
        """(name, start ns, end ns, stream, origin) of every kernel since clear(); call after a
        device synchronisation."""
        self._flush()
        out = []
        for i in range(self._count()):
            if self._get(i, ctypes.byref(self._name), ctypes.byref(self._u64[0]),
                         ctypes.byref(self._u64[1]), ctypes.byref(self._u32[0]),
                         ctypes.byref(self._u32[1]), ctypes.byref(self._origin)) != 0:
                break
            raw = self._name.value or b""
            out.append((raw.decode("utf-8", "replace"), self._u64[0].value, self._u64[1].value,
                        self._u32[0].value, self._origin.value))
        return out

    def timestamp(self) -> int:
        """CUPTI's clock now (ns), the one records() are on; 0 while paused or not started."""
        return int(self._timestamp())

    def dropped(self) -> int:
        return int(self._dropped())

    def set_recording(self, on: bool) -> None:
        """Pauses or resumes CUPTI's records (call with the device synchronised). Recording
        costs tens of microseconds per launch and more per synchronisation, so timed calls run
        paused (timing.py)."""
        if self._record(1 if on else 0) != 0:
            raise RuntimeError("the kernel inventory could not be paused or resumed")


class paused:
    """Context: the recorder (may be None) paused inside, after synchronize(); resumed after."""

    def __init__(self, recorder: "Recorder | None", synchronize: Callable[[], None]):
        self._recorder, self._synchronize = recorder, synchronize

    def __enter__(self) -> None:
        if self._recorder is not None:
            self._synchronize()
            self._recorder.set_recording(False)

    def __exit__(self, *exc: Any) -> None:
        if self._recorder is None:
            return
        try:
            self._synchronize()
        except BaseException:  # noqa: BLE001 - a dead context: the caller reports the fault
            if exc[0] is None:
                raise
            return
        self._recorder.set_recording(True)


def _load(path: str) -> Any:
    lib = ctypes.CDLL(path)
    lib.kbx_cupti_start.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.kbx_cupti_error.restype = ctypes.c_char_p
    lib.kbx_cupti_push.argtypes = [ctypes.c_int]
    lib.kbx_cupti_pop.argtypes = [ctypes.c_int]
    lib.kbx_cupti_count.restype = ctypes.c_size_t
    lib.kbx_cupti_dropped.restype = ctypes.c_uint64
    lib.kbx_cupti_record.argtypes = [ctypes.c_int]
    lib.kbx_cupti_get.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p),
                                  ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                                  ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                                  ctypes.POINTER(ctypes.c_int)]
    return lib


def find_libcupti() -> str | None:
    """The CUPTI that matches torch's CUDA: torch's wheels, then the toolkit, then Triton's copy."""
    roots = [p for p in sys.path if p and os.path.isdir(p)]
    patterns = []
    for root in roots:
        patterns += [os.path.join(root, "nvidia", "cu*", "lib", "libcupti.so*"),
                     os.path.join(root, "nvidia", "cuda_cupti", "lib", "libcupti.so*"),
                     os.path.join(root, "torch", "lib", "libcupti*.so*")]
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home:
            patterns += [os.path.join(home, "extras", "CUPTI", "lib64", "libcupti.so*"),
                         os.path.join(home, "lib64", "libcupti.so*"),
                         os.path.join(home, "lib", "libcupti.so*")]
    for root in roots:
        patterns.append(os.path.join(root, "triton", "backends", "nvidia", "lib", "cupti",
                                     "libcupti.so*"))
    for pattern in patterns:
        found = sorted(glob.glob(pattern), key=len)
        if found:
            return found[0]
    return None


def preload(library: str | None = None) -> tuple[Any, str] | str:
    """Maps libkbx_cupti and libcupti into the process (before the sandbox hides files); returns
    (the library, libcupti's path) or "off: why"."""
    library = library if library is not None else os.environ.get("KBX_CUPTI_LIBRARY", "")
    if not library:
        return "off: kbx was built without libkbx_cupti (no cupti.h at build time)"
    cupti = find_libcupti()
    if cupti is None:
        return "off: no libcupti found (torch's nvidia wheels, CUDA_HOME, Triton)"
    try:
        lib = _load(library)
        ctypes.CDLL(cupti, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        return f"off: cannot load {library} or {cupti}: {e}"
    return lib, cupti


def start(preloaded: tuple[Any, str] | str | None) -> tuple[Recorder | None, str]:
    """Starts CUPTI through a preload()ed library; returns (recorder or None, "on: ..." | "off:
    why"). Must run before CUDA is initialised and before any submission code."""
    if preloaded is None:
        preloaded = preload()
    if isinstance(preloaded, str):
        return None, preloaded
    lib, cupti = preloaded
    # CUPTI emits the external correlation records that tag Triton's and the harness's kernels
    # only alongside runtime and driver API records (seen with CUPTI 13 on an H200).
    if lib.kbx_cupti_start(cupti.encode(), 1) != 0:
        return None, f"off: {lib.kbx_cupti_error().decode(errors='replace')}"
    return Recorder(lib), f"on: CUPTI activity records ({cupti})"


def busy_ns(records: list[tuple[str, int, int, int, int]]) -> int:
    """Length of the union of the records' [start, end) intervals: time the GPU was running them."""
    total, cur_start, cur_end = 0, None, None
    for _, s, e, _, _ in sorted(records, key=lambda r: r[1]):
        if cur_end is None or s > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = s, e
        else:
            cur_end = max(cur_end, e)
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def summarize(records: list[tuple[str, int, int, int, int]]) -> list[dict]:
    """Kernels by (name, origin): launches and GPU ms, largest first; harness kernels left out;
    past MAX_NAMES, the rest summed per origin into "(other kernels)"."""
    by_key: dict[tuple[str, str], list] = {}
    for name, s, e, _, origin in records:
        if origin == HARNESS:
            continue
        key = (name[:NAME_LIMIT], ORIGINS.get(origin, "other"))
        entry = by_key.setdefault(key, [0, 0])
        entry[0] += 1
        entry[1] += max(0, e - s)
    rows = sorted(by_key.items(), key=lambda kv: -kv[1][1])
    out = [{"name": n, "origin": o, "launches": c, "gpu_ms": ns / 1e6}
           for (n, o), (c, ns) in rows[:MAX_NAMES]]
    rest: dict[str, list] = {}
    for (_, o), (c, ns) in rows[MAX_NAMES:]:
        r = rest.setdefault(o, [0, 0])
        r[0] += c
        r[1] += ns
    out += [{"name": "(other kernels)", "origin": o, "launches": c, "gpu_ms": ns / 1e6}
            for o, (c, ns) in rest.items()]
    return out


def measure(recorder: Recorder | None, fn: Callable[[], Any], synchronize: Callable[[], None]
            ) -> tuple[Any, list | None]:
    """Runs fn() and returns (its value, the kernels it ran, or None without a recorder)."""
    if recorder is None:
        return fn(), None
    synchronize()
    recorder.clear()
    value = fn()
    synchronize()
    return value, recorder.records()
