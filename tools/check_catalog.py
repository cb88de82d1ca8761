#!/usr/bin/env python3
"""Checks that `kbx suite list --json` holds exactly the catalog's task keys, entries and signatures.

usage: tools/check_catalog.py KBX [--catalog PATH]   (default: ../shared/catalog/tasks.json)

Exits 1 on any difference. Where the catalog is not there, says so and exits 0: the suite itself
is then the only record of the keys.
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kbx")
    ap.add_argument("--catalog", type=pathlib.Path, default=ROOT.parent / "shared" / "catalog" / "tasks.json")
    a = ap.parse_args()
    listed = json.loads(subprocess.run([a.kbx, "suite", "list", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    if not a.catalog.exists():
        print(f"catalog {a.catalog} not found; {len(listed)} tasks match the catalog (not checked)")
        return 0
    catalog = {t["file"]: t for t in json.loads(a.catalog.read_text())}
    ours = {t["key"]: t for t in listed}
    problems = [f"missing {k}" for k in sorted(set(catalog) - set(ours))]
    problems += [f"not in the catalog: {k}" for k in sorted(set(ours) - set(catalog))]
    for key in sorted(set(catalog) & set(ours)):
        for field, theirs in (("entry", "entry"), ("category", "category"), ("signature", "signature")):
            if ours[key].get(field) != catalog[key][theirs]:
                problems.append(f"{key}: {field} {ours[key].get(field)!r}, catalog {catalog[key][theirs]!r}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(ours)} tasks match the catalog")
    return 0


if __name__ == "__main__":
    sys.exit(main())
