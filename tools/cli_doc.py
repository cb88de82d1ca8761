#!/usr/bin/env python3
"""Keeps docs/cli.md's help blocks equal to `kbx ... --help`.

usage: tools/cli_doc.py KBX [--write]

docs/cli.md marks each block with `<!-- help: ARGS -->` followed by a ```text fence; the block must
hold exactly what `KBX ARGS --help` prints. Without --write, exits 1 and shows a diff when a block is
stale; with --write, rewrites the blocks.
"""

import argparse
import difflib
import pathlib
import re
import subprocess
import sys

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "cli.md"
BLOCK = re.compile(r"(<!-- help:(?P<args>[^>]*)-->\n```text\n)(?P<body>.*?)(```)", re.S)


def help_text(kbx: str, args: str) -> str:
    out = subprocess.run([kbx, *args.split(), "--help"], capture_output=True, text=True, check=True).stdout
    return out if out.endswith("\n") else out + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kbx")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    text = DOC.read_text()
    fresh = BLOCK.sub(lambda m: m.group(1) + help_text(a.kbx, m.group("args")) + m.group(4), text)
    if fresh == text:
        return 0
    if a.write:
        DOC.write_text(fresh)
        print(f"updated {DOC}")
        return 0
    sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), fresh.splitlines(True),
                                               "docs/cli.md", "kbx --help"))
    print("docs/cli.md is stale: run tools/cli_doc.py KBX --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
