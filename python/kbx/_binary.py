"""Finding the kbx binary and running it with the calling Python as the worker's interpreter."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

_here = Path(__file__).resolve().parent


class KbxError(RuntimeError):
    """kbx could not do what was asked (no binary, a bad argument, an unreadable run folder).

    Outcomes of the code under test are never errors: they are EvalResult values.
    """


def binary() -> str:
    """The kbx binary: $KBX_BINARY, else the wheel's (kbx/_home/bin/kbx), else build/kbx of the
    checkout this package lies in, else the first kbx on PATH."""
    env = os.environ.get("KBX_BINARY")
    if env:
        return env
    for candidate in (_here / "_home" / "bin" / "kbx", _here.parent.parent / "build" / "kbx"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("kbx")
    if found:
        return found
    raise KbxError("no kbx binary: install the kbx wheel, build kbx (tools/setup.sh), "
                   "or set KBX_BINARY to its path")


def environment() -> dict:
    """The environment for the binary: KBX_PYTHON defaults to this interpreter, which has the
    worker's torch and Triton when kbx was pip-installed next to them."""
    env = dict(os.environ)
    env.setdefault("KBX_PYTHON", sys.executable)
    return env


def run(args: list, *, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `kbx ARGS...`, capturing its output; exits other than 0 (and 1 with check=False)
    raise KbxError with kbx's message."""
    proc = subprocess.run([binary(), *args], env=environment(), capture_output=True, text=True)
    allowed = (0,) if check else (0, 1)
    if proc.returncode not in allowed:
        message = (proc.stderr.strip() or proc.stdout.strip())[-2000:]
        raise KbxError(f"kbx {' '.join(args[:2])} exited {proc.returncode}: {message}")
    return proc
