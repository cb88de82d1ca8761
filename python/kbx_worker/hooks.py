"""Counts Triton kernel launches by wrapping the launch methods of Triton's kernel classes.

install() must run before any submission is loaded. It returns the only accessor of the counter;
the caller keeps it privately (the count lives in a closure, not in a module attribute).
"""

from __future__ import annotations

import functools
from typing import Callable

_MARK = "__kbx_wrapped__"


def install() -> Callable[[], int]:
    """Wraps JITFunction.run and InterpretedFunction.run (once a process); returns a count reader.

    A call counts as a launch when it is not a warm-up (`warmup=False`) and returns normally.
    """
    count = [0]

    def counted(original: Callable) -> Callable:
        @functools.wraps(original)
        def run(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
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
    return lambda: count[0]


def _launch_classes() -> list[type]:
    from triton.runtime.jit import JITFunction

    classes: list[type] = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # a Triton without the interpreter: nothing to wrap there
        return classes
    classes.append(InterpretedFunction)
    return classes
