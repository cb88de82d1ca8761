#!/usr/bin/env python3
"""Build a KernelBench-X JSONL from tests/model_kernels/<Category>/<stem>[__variant].py.

Usage: build_jsonl.py OUT.jsonl [GLOB ...]   (globs relative to this folder, default '*/*.py')
Each line: {"predict": code, "file": "Category/stem.py", "variant": "<file name>"}.
"""
import glob, json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
pats = sys.argv[2:] or ['*/*.py']
files = sorted({f for p in pats for f in glob.glob(os.path.join(here, p))})
with open(out, 'w') as fh:
    for f in files:
        rel = os.path.relpath(f, here)
        cat, name = rel.split(os.sep)
        stem = name[:-3].split('__')[0]
        fh.write(json.dumps({"predict": open(f).read(), "file": f"{cat}/{stem}.py", "variant": rel}) + "\n")
print(len(files), 'submissions ->', out)
