"""Counts Triton kernel launches by wrapping the launch methods of Triton's kernel classes.

install() must run before any submission is loaded. It returns the only handle on the counter;
the caller keeps it privately (the count lives in a closure, not in a module attribute).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable

_MARK = "__kbx_wrapped__"
TRITON_TAG, HARNESS_TAG = 1, 2  # inventory.TRITON, inventory.HARNESS


class Launches:
    """Calling it gives the launch count. watch() sets an observer told of each launch: its
    `begin(args, kwargs)` before the kernel runs and `end(args, kwargs)` after (provenance.py).
    tag_with() sets the kernel inventory's recorder, which tags the GPU kernels a launch runs as
    Triton's (inventory.py)."""

    def __init__(self, count: list, observer: list, tagger: list):
        self._count = count
        self._observer = observer
        self._tagger = tagger

    def __call__(self) -> int:
        return self._count[0]

    def watch(self, observer: Any) -> None:
        self._observer[0] = observer

    def tag_with(self, recorder: Any) -> None:
        self._tagger[0] = recorder


def install() -> Launches:
    """Wraps JITFunction.run and InterpretedFunction.run (once a process); returns the counter.

    A call counts as a launch when it is not a warm-up (`warmup=False`) and returns normally.
    """
    count = [0]
    observer: list = [None]
    tagger: list = [None]

    def counted(original: Callable) -> Callable:
        @functools.wraps(original)
        def run(self, *args, **kwargs):
            watching = observer[0] if not kwargs.get("warmup", False) else None
            recorder = tagger[0]
            if watching is not None:
                with _tagged(recorder, HARNESS_TAG):  # the observer's snapshots are kbx's work
                    watching.begin(args, kwargs)
                named = getattr(watching, "launched", None)
                if named is not None:
                    named(_kernel_name(self))
            try:
                with _tagged(recorder, TRITON_TAG):
                    result = original(self, *args, **kwargs)
            finally:
                if watching is not None:
                    with _tagged(recorder, HARNESS_TAG):
                        watching.end(args, kwargs)
            if not kwargs.get("warmup", False):
                count[0] += 1
            return result

        setattr(run, _MARK, True)
        return run

    for cls in _launch_classes():
        original = cls.__dict__.get("run")
        if original is None or getattr(original, _MARK, False):
            raise RuntimeError(f"{cls.__qualname__}.run is missing or already wrapped")
        cls.run = counted(original)
    fix_interpreter_dot()
    return Launches(count, observer, tagger)


def fix_interpreter_dot() -> bool:
    """Widens bfloat16 operands of tl.dot to float32 in Triton's CPU interpreter (once a process).

    The interpreter keeps bfloat16 tensors as their uint16 bit patterns, and its create_dot (Triton
    3.6) hands those to numpy's matmul as integers: a correct bfloat16 tl.dot kernel computes
    garbage under TRITON_INTERPRET=1 while it is right on the GPU. Widening first is exact (every
    bfloat16 is a float32, and the GPU multiplies bfloat16 exactly, accumulating in the float32 `d`),
    and stays right on a Triton whose create_dot handles bfloat16 itself. Returns whether it patched.
    """
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder = getattr(interpreter, "InterpreterBuilder", None)
    handle = getattr(interpreter, "TensorHandle", None)
    original = getattr(builder, "create_dot", None)
    if original is None or handle is None or getattr(original, _MARK, False):
        return False

    def widened(t: Any) -> Any:
        if getattr(t, "dtype", None) != tl.bfloat16 or getattr(t.data, "dtype", None) != np.uint16:
            return t
        bits = t.data.astype(np.uint32) << np.uint32(16)
        return handle(bits.view(np.float32), tl.float32)

    @functools.wraps(original)
    def create_dot(self, a, b, d, *args, **kwargs):
        return original(self, widened(a), widened(b), d, *args, **kwargs)

    setattr(create_dot, _MARK, True)
    builder.create_dot = create_dot
    return True


@contextlib.contextmanager
def _tagged(recorder: Any, tag: int):
    """Tags the GPU kernels launched inside for the inventory (nothing without a recorder)."""
    if recorder is None:
        yield
        return
    recorder.push(tag)
    try:
        yield
    finally:
        recorder.pop(tag)


def _kernel_name(fn: Any) -> str:
    """The Triton function's name (the GPU kernel's name too)."""
    inner = getattr(fn, "fn", None)
    name = getattr(inner, "__name__", None) or getattr(fn, "__name__", None)
    return str(name)[:256] if name else "triton_kernel"


def _launch_classes() -> list[type]:
    from triton.runtime.jit import JITFunction

    classes: list[type] = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # a Triton without the interpreter: nothing to wrap there
        return classes
    classes.append(InterpretedFunction)
    return classes
