"""Code quality of submissions' source text, as the public KernelBench-X harness measures it (radon).

A trusted step: kbx runs it once at export time, in a process of its own, over the source text of
every submission. It only parses the text (radon walks the AST); it never imports or runs it.

    python -m kbx_worker.code_quality IN.json OUT.json

IN.json: {"sources": {"<submission id>": "<code>", ...}}
OUT.json: {"radon": "6.0.1" or null, "note": "" or why there are no figures,
           "results": {"<submission id>": {"code_quality": 2.5 or null,
                                           "maintainability": 71.43 or null,
                                           "error": "" or why this one has none}}}

code_quality is radon.complexity.average_complexity(radon.complexity.cc_visit(code)) (the mean
cyclomatic complexity over the blocks radon finds, 0 without any), maintainability is
radon.metrics.mi_visit(code, multi=True); both rounded to two decimals (docs/metrics.md).
"""

from __future__ import annotations

import json
import sys


def _measure(code: str, complexity, metrics) -> dict:
    try:
        cc = complexity.average_complexity(complexity.cc_visit(code))
        mi = metrics.mi_visit(code, multi=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return {"code_quality": None, "maintainability": None,
                "error": f"radon cannot parse the code: {type(e).__name__}: {e}"[:300]}
    return {"code_quality": round(float(cc), 2), "maintainability": round(float(mi), 2), "error": ""}


def measure_all(sources: dict[str, str]) -> dict:
    """The figures of every source; a note and no figures when radon is not installed."""
    try:
        import radon
        from radon import complexity, metrics
    except ImportError:
        return {"radon": None,
                "note": "radon is not installed for this Python; install python/requirements.txt "
                        "(pip install -r python/requirements.txt) to get code_quality and "
                        "maintainability",
                "results": {}}
    results = {key: _measure(code, complexity, metrics) for key, code in sources.items()}
    return {"radon": getattr(radon, "__version__", ""), "note": "", "results": results}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m kbx_worker.code_quality IN.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        request = json.load(f)
    sources = request.get("sources")
    if not isinstance(sources, dict) or not all(isinstance(v, str) for v in sources.values()):
        print(f"{argv[0]}: 'sources' must map ids to source text", file=sys.stderr)
        return 2
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(measure_all(sources), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
