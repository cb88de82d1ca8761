"""The `kbx` command of the wheel: replaces itself with the binary, the worker's Python defaulting
to the interpreter that runs this script (the environment kbx was installed into)."""

import os
import sys

from kbx._binary import KbxError, binary, environment


def main() -> None:
    try:
        exe = binary()
    except KbxError as e:
        sys.exit(f"kbx: {e}")
    os.execve(exe, [exe, *sys.argv[1:]], environment())


if __name__ == "__main__":
    main()
