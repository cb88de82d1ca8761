#!/usr/bin/env python3
"""Regenerates examples/predictions.jsonl from the submissions in examples/correct/, which are
copies of kbx's expert kernels (solutions/, measured on the H200: docs/perf.md).

KernelBench-X's prediction format is one JSON object per line: "predict" holds the model's whole
answer (prose around a fenced python block, which kbx extracts) and "file" names the task as
"Category/stem.py". One extra line names its task through an "instruction" (the prompt) instead
of "file", the other form KernelBench-X accepts.

    python3 tools/make_example_predictions.py          # writes examples/predictions.jsonl
    python3 tools/make_example_predictions.py --check  # exits 1 if the file is stale, or if a
                                                       # correct/ file differs from its solutions/ copy
"""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "examples"
CORRECT = HERE / "correct"
OUT = HERE / "predictions.jsonl"
SOLUTIONS = HERE.parent / "solutions"

FENCE = "`" * 3  # written this way so this script holds no literal fence

# Task used for the "instruction" line, and the prompt text for it (KernelBench-X style: it names
# the function and the file, which is how kbx resolves the task).
INSTRUCTION_TASK = "Activation/relu.py"
INSTRUCTION = (
    "You are an expert in writing Triton operators for efficient GPU programming. Write the file "
    "Activation/relu.py: a Python wrapper `def relu(input, inplace=False)` that returns "
    "max(input, 0) elementwise, computed by a Triton kernel. With inplace=True the result must be "
    "written into `input`, which is returned. Keep the signature exactly as given; the tests call "
    "relu directly."
)


def answer(key: str, code: str) -> str:
    """The submission wrapped as an LLM answer: a sentence, the fenced code, a short explanation."""
    stem = key.rsplit("/", 1)[-1][:-3]
    return (
        f"Here is a Triton implementation for `{key}`.\n\n"
        f"{FENCE}python\n{code.rstrip()}\n{FENCE}\n\n"
        f"The module defines the Triton kernels and the `{stem}` entry point wrapper with the "
        "requested signature; all the arithmetic runs inside the kernels."
    )


def build_lines() -> list:
    files = sorted(p for p in CORRECT.glob("*/*.py"))
    if not files:
        raise SystemExit(f"no submissions under {CORRECT}")
    lines = []
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        code = path.read_text()
        if FENCE in code:
            raise SystemExit(f"{path}: holds a code fence, which would cut the answer short")
        lines.append({"predict": answer(key, code), "file": key})
    instr_path = CORRECT / INSTRUCTION_TASK
    lines.append({"instruction": INSTRUCTION,
                  "predict": answer(INSTRUCTION_TASK, instr_path.read_text())})
    return lines


def render() -> str:
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in build_lines())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the file is up to date")
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args()
    text = render()
    drifted = [p.relative_to(CORRECT).as_posix() for p in sorted(CORRECT.glob("*/*.py"))
               if not (SOLUTIONS / p.relative_to(CORRECT)).is_file()
               or (SOLUTIONS / p.relative_to(CORRECT)).read_bytes() != p.read_bytes()]
    if drifted:
        print(f"examples/correct/ must hold copies of solutions/ files; these differ or have none: "
              f"{', '.join(drifted)} (copy them from solutions/, then run this script)", file=sys.stderr)
        return 1
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale: run python3 tools/make_example_predictions.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
