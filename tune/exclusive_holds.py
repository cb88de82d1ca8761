#!/usr/bin/env python3
"""The exclusive holds of `kbx eval --trace` runs: how many, their time, and how many were timed
with the host quiet (`host_quiet`) or with the reference timed again next to the candidate
(`reference_adjacent`), with those holds' time. One line per trace.

usage: tune/exclusive_holds.py TRACE.json [TRACE.json ...]
"""
import json
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            data = json.load(f)
        events = data["traceEvents"] if isinstance(data, dict) else data
        holds = [e for e in events if e.get("ph") == "X" and e.get("cat") == "exclusive"]
        adjacent = [e for e in holds if e.get("args", {}).get("reference_adjacent")]
        quiet = [e for e in holds if e.get("args", {}).get("host_quiet")]
        print(f"{path}: {len(holds)} exclusive holds, {sum(e['dur'] for e in holds) / 1e6:.1f} s; "
              f"host_quiet {len(quiet)}, reference_adjacent {len(adjacent)} "
              f"({sum(e['dur'] for e in adjacent) / 1e6:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
