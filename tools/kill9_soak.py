#!/usr/bin/env python3
"""kill -9 soak: kbx killed at random moments of a run, then resumed, must end where an
uninterrupted run ends.

usage: tools/kill9_soak.py --kbx build-dev/kbx [--kills 20] [--kills-per-round 4] [--seed 1]
                           [--source examples] [--keep DIR] [-- extra kbx eval arguments]

1. An uninterrupted reference run: `kbx eval SOURCE -o REF --device cpu ARGS` with a fresh
   reference-output cache; its wall time T bounds the kill delays.
2. Rounds, until --kills kills have happened: a fresh output folder and a fresh cache; the same
   command is started, and SIGKILLed after a delay drawn uniformly from [0, T) by a seeded RNG
   (so kills land in start-up, reference computation, evaluation, and the final store and export
   writes); it is started again in the same folder, and killed again, until a start finishes on its
   own before its delay, or --kills-per-round kills have happened (then the next start runs to
   completion unkilled; without that bound, the kills of a round pile up in whatever is left last,
   such as a hanging submission's timeout). The last round ends the same way. In the first
   --end-kills rounds, the first start is instead killed at a random moment after the store holds
   every evaluation, within the time the reference run took from there to its exit (stopping the
   workers, ending the session, writing the exports: too short for delays over the whole run to
   hit often).
3. After every kill: every process the killed kbx had started (zygote, reference and candidate
   workers) must be gone within --orphan-limit seconds (this script is their child subreaper, so
   orphans are found and reaped here), and so must the pids cgroups of its sandboxed workers; the
   time they took is reported.
4. After every round: per submission the verdict (outcome, reason, call/exe/perf/triton flags,
   detail) equals the reference run's; each submission has exactly one evaluation, and none
   stored by one start was redone by a later one; there is one session per start that reached the
   store, and none is left `running`; `PRAGMA integrity_check` and `foreign_key_check` pass;
   metrics.json, summary.json and kbx-results.json parse and equal the reference run's but for timing fields; no
   temporary files are left beside them.

Prints one line per kill and per round, and exits 1 on any difference (2 on a usage error).
Runs on the CPU through Triton's interpreter (TRITON_INTERPRET=1, which kbx also sets for
--device cpu). Only the standard library is needed.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import pathlib
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36

# Fields that depend on timing (all zero or absent on the CPU, where perf is skipped, but a run
# on a GPU would measure them afresh) and so are left out of the comparisons.
METRIC_TIMING_FIELDS = {"runtime_ms", "gbs", "tflops", "speedup", "avg_speedup", "ref_runtime_ms",
                        "perf_note", "workloads", "speedup_ci_low", "speedup_ci_high",
                        "speedup_verdict", "performance"}
SUMMARY_TIMING_FIELDS = {"avg_speedup_global", "avg_speedup_per_task", "geomean_speedup",
                         "faster_than_reference", "speedup_verdicts", "fast_1", "fast_1_5", "fast_2"}
VERDICT_SQL = """
    SELECT e.submission_id, s.task_key, s.origin, e.outcome, e.reason, e.call_ok, e.exe_ok,
           e.perf_ok, e.triton_ok, e.detail
    FROM evaluations e JOIN submissions s USING (submission_id)"""


class Soak:
    def __init__(self, args: argparse.Namespace, work: pathlib.Path):
        self.a = args
        self.work = work
        self.rng = random.Random(args.seed)
        self.kills: list[dict] = []
        self.rounds: list[dict] = []
        self.problems: list[str] = []

    # -- processes ---------------------------------------------------------------------------
    def command(self, out: pathlib.Path) -> list[str]:
        return [self.a.kbx, "eval", self.a.source, "-o", str(out), "--device", "cpu", *self.a.extra]

    def env(self, cache: pathlib.Path) -> dict:
        env = dict(os.environ)
        env.update({"KBX_PYTHON": self.a.python, "KBX_CACHE_DIR": str(cache), "NO_COLOR": "1",
                    "TRITON_INTERPRET": "1"})
        return env

    def start(self, out: pathlib.Path, cache: pathlib.Path, log: pathlib.Path) -> subprocess.Popen:
        with open(log.with_suffix(".out"), "w") as o, open(log.with_suffix(".err"), "w") as e:
            return subprocess.Popen(self.command(out), stdout=o, stderr=e, env=self.env(cache),
                                    stdin=subprocess.DEVNULL)

    def wait_for_orphans(self) -> tuple[float, list[str]]:
        """Seconds until no process started by the killed kbx is left; what is left at the limit."""
        started = time.monotonic()
        while True:
            reap_children()
            left = descendants(os.getpid())
            if not left:
                return time.monotonic() - started, []
            if time.monotonic() - started > self.a.orphan_limit:
                names = [f"{pid} {cmdline(pid)[:120]}" for pid in left]
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                return time.monotonic() - started, names
            time.sleep(0.05)

    # -- the runs ----------------------------------------------------------------------------
    def reference(self) -> None:
        out, cache = self.work / "reference", self.work / "cache-reference"
        started = time.monotonic()
        proc = self.start(out, cache, self.work / "reference")
        stored, last_stored = 0, started
        while proc.poll() is None:  # when the last evaluation was stored, for --end-kills
            if (now := store_state(out)["evaluations"]) != stored:
                stored, last_stored = now, time.monotonic()
            time.sleep(0.005)
        code = proc.returncode
        self.duration = time.monotonic() - started
        self.tail = time.monotonic() - last_stored  # ending the session, exports, the summary
        _, left = self.wait_for_orphans()
        if left:
            self.problem(f"reference run: processes left after it ended: {left}")
        if code != 0:
            raise SystemExit(f"kill9_soak: the reference run failed (exit {code}):\n"
                             f"{(self.work / 'reference.err').read_text()[-3000:]}")
        self.ref = snapshot(out, cache)
        print(f"reference run: {len(self.ref['verdicts'])} submissions in {self.duration:.1f} s, "
              f"{self.tail:.2f} s of it after the last evaluation was stored ({out})")

    def run_round(self, number: int) -> None:
        out, cache = self.work / f"round-{number}", self.work / f"cache-round-{number}"
        starts, stored_by = 0, {}
        while True:
            starts += 1
            log = self.work / f"round-{number}-start-{starts}"
            last = len(self.kills) >= self.a.kills or starts > self.a.kills_per_round
            at_end = not last and starts == 1 and number <= self.a.end_kills
            delay = None if last or at_end else self.rng.uniform(0, self.duration)
            sessions_before = store_state(out)["sessions"]
            begun = time.monotonic()
            proc = self.start(out, cache, log)
            if at_end:
                code = self.wait_for_last_evaluation(proc, out)
                delay = time.monotonic() - begun
            else:
                try:
                    code = proc.wait(timeout=delay if delay is not None else self.a.run_limit)
                except subprocess.TimeoutExpired:
                    code = None
            if code is not None or last:
                if code is None:
                    proc.kill()
                    proc.wait()
                    self.problem(f"round {number}: the last start did not finish in {self.a.run_limit} s")
                elif code != 0:
                    self.problem(f"round {number}: start {starts} ended with exit {code}: "
                                 f"{log.with_suffix('.err').read_text()[-500:]}")
                _, left = self.wait_for_orphans()
                if left:
                    self.problem(f"round {number}: processes left after a finished start: {left}")
                break
            workers = descendants(proc.pid)  # the zygote and the workers forked so far
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            phase = phase_of(log, store_state(out), sessions_before, len(self.ref["verdicts"]))
            linger, left = self.wait_for_orphans()
            cgroups = [c for c in map(worker_cgroup, workers) if c is not None and c.exists()]
            if cgroups:
                self.problem(f"round {number} kill {len(self.kills) + 1}: the killed run's workers "
                             f"left their pids cgroups: {[str(c) for c in cgroups]}")
            done = evaluated_by_session(out)
            self.kills.append({"round": number, "start": starts, "delay": delay, "phase": phase,
                               "stored": len(done), "orphans_s": linger, "left": left})
            self.check_nothing_redone(number, stored_by, done)
            if left:
                self.problem(f"round {number} kill {len(self.kills)}: processes left after "
                             f"{self.a.orphan_limit} s: {left}")
            how = "after the last evaluation" if at_end else "random"
            print(f"kill {len(self.kills):>2}  round {number} start {starts}  at {delay:5.1f} s "
                  f"({how}): {phase:<10} {len(done):>3} stored, workers gone after {linger:.1f} s")
        self.check_round(number, out, cache, starts, stored_by)

    def wait_for_last_evaluation(self, proc: subprocess.Popen, out: pathlib.Path) -> int | None:
        """Polls the store every 5 ms until it holds every evaluation, then waits a random part of
        the reference run's time from its last evaluation to its exit (stopping the workers,
        ending the session, writing the exports: too short for a random delay over the whole run
        to hit); None then, or the exit status if the start ended first."""
        total = len(self.ref["verdicts"])
        while proc.poll() is None:
            if store_state(out)["evaluations"] >= total:
                time.sleep(self.rng.uniform(0, self.tail))
                return proc.poll()
            time.sleep(0.005)
        return proc.returncode

    def check_nothing_redone(self, number: int, stored_by: dict, done: dict) -> None:
        for sid, session in done.items():
            if stored_by.setdefault(sid, session) != session:
                self.problem(f"round {number}: submission {sid} stored by session "
                             f"{stored_by[sid]} was evaluated again by session {session}")

    def check_round(self, number: int, out: pathlib.Path, cache: pathlib.Path, starts: int,
                    stored_by: dict) -> None:
        before = len(self.problems)
        got = snapshot(out, cache)
        self.check_nothing_redone(number, stored_by, evaluated_by_session(out))
        for what in ("verdicts", "metrics", "summary"):
            for line in differences(self.ref[what], got[what]):
                self.problem(f"round {number}: {what}: {line}")
        if got["evaluations"] != len(self.ref["verdicts"]) or got["distinct"] != got["evaluations"]:
            self.problem(f"round {number}: {got['evaluations']} evaluations of {got['distinct']} "
                         f"submissions, expected {len(self.ref['verdicts'])} of as many")
        if got["integrity"] != ["ok"] or got["foreign_keys"]:
            self.problem(f"round {number}: integrity_check {got['integrity']}, "
                         f"foreign_key_check {got['foreign_keys']}")
        if got["sessions"] > starts:
            self.problem(f"round {number}: {got['sessions']} sessions for {starts} starts")
        if got["running"]:
            self.problem(f"round {number}: sessions left 'running': {got['running']}")
        if got["stray_files"]:
            self.problem(f"round {number}: files left in the folder: {got['stray_files']}")
        ok = len(self.problems) == before
        self.rounds.append({"round": number, "starts": starts, "sessions": got["sessions"], "ok": ok})
        print(f"round {number}: {starts} starts, {got['sessions']} sessions, "
              f"{got['evaluations']} evaluations, integrity {got['integrity'][0]}: "
              f"{'same verdicts and exports as the reference' if ok else 'DIFFERENT (see below)'}")

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def main(self) -> int:
        self.reference()
        number = 0
        while len(self.kills) < self.a.kills:
            number += 1
            self.run_round(number)
        self.report()
        return 1 if self.problems else 0

    def report(self) -> None:
        phases: dict[str, int] = {}
        for k in self.kills:
            phases[k["phase"]] = phases.get(k["phase"], 0) + 1
        lingers = sorted(k["orphans_s"] for k in self.kills)
        print(f"\n{len(self.kills)} kills in {len(self.rounds)} rounds (seed {self.a.seed}, delays "
              f"in [0, {self.duration:.1f}) s); kills by phase: "
              + ", ".join(f"{p} {n}" for p, n in sorted(phases.items())))
        if lingers:
            print(f"worker processes gone after a kill: median {lingers[len(lingers) // 2]:.1f} s, "
                  f"max {lingers[-1]:.1f} s")
        print(f"rounds equal to the reference: {sum(r['ok'] for r in self.rounds)} of {len(self.rounds)}")
        for p in self.problems:
            print(f"DIFFERENCE: {p}")
        print("PASS" if not self.problems else "FAIL")


# -- reading a run folder ------------------------------------------------------------------------
def normalize(text: str, out: pathlib.Path, cache: pathlib.Path) -> str:
    """The run's own folder and cache, and the pids in the sandbox report, as placeholders."""
    text = text.replace(str(out), "{out}").replace(str(cache), "{cache}")
    return re.sub(r"kbx-w\d+", "kbx-w{pid}", text)


def snapshot(out: pathlib.Path, cache: pathlib.Path) -> dict:
    db = out / "kbx.db"
    with sqlite3.connect(db) as con:
        rows = con.execute(VERDICT_SQL).fetchall()
        verdicts = {r[0]: {"task": r[1], "origin": r[2], "outcome": r[3], "reason": r[4],
                           "call_ok": r[5], "exe_ok": r[6], "perf_ok": r[7], "triton_ok": r[8],
                           "detail": r[9]} for r in rows}
        evaluations, distinct = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT submission_id) FROM evaluations").fetchone()
        integrity = [r[0] for r in con.execute("PRAGMA integrity_check")]
        foreign_keys = con.execute("PRAGMA foreign_key_check").fetchall()
        sessions = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        running = [r[0] for r in con.execute("SELECT session_id FROM sessions WHERE status = 'running'")]
    results = json.loads((out / "kbx-results.json").read_text())
    metrics = {m["submission_id"]: {k: v for k, v in m.items() if k not in METRIC_TIMING_FIELDS}
               for m in results["submissions"]}
    metrics["public"] = {f: {k: v for k, v in m.items() if k not in METRIC_TIMING_FIELDS}
                         for f, m in json.loads((out / "metrics.json").read_text()).items()}
    summary = {k: v for k, v in results["summary"].items() if k not in SUMMARY_TIMING_FIELDS}
    summary["public"] = {k: v for k, v in json.loads((out / "summary.json").read_text()).items()
                         if k not in SUMMARY_TIMING_FIELDS}
    for totals in summary.get("categories", {}).values():
        for k in SUMMARY_TIMING_FIELDS:
            totals.pop(k, None)
    summary = json.loads(normalize(json.dumps(summary), out, cache))
    stray = sorted(p.name for p in out.iterdir() if ".tmp." in p.name)
    return {"verdicts": verdicts, "metrics": metrics, "summary": summary,
            "evaluations": evaluations, "distinct": distinct, "integrity": integrity,
            "foreign_keys": foreign_keys, "sessions": sessions, "running": running,
            "stray_files": stray}


def evaluated_by_session(out: pathlib.Path) -> dict[str, int]:
    db = out / "kbx.db"
    if not db.exists():
        return {}
    with sqlite3.connect(db, timeout=10) as con:
        try:
            return dict(con.execute("SELECT submission_id, session_id FROM evaluations").fetchall())
        except sqlite3.OperationalError:  # killed before the schema was made
            return {}


def differences(want, got, path: str = "") -> list[str]:
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for k in sorted(set(want) | set(got), key=str):
            if k not in got:
                out.append(f"{path}{k}: missing")
            elif k not in want:
                out.append(f"{path}{k}: unexpected {json.dumps(got[k])[:200]}")
            else:
                out += differences(want[k], got[k], f"{path}{k}.")
        return out
    if want != got:
        return [f"{path.rstrip('.')}: {json.dumps(got)[:200]} instead of {json.dumps(want)[:200]}"]
    return []


def store_state(out: pathlib.Path) -> dict:
    """Sessions, and the latest one's status and environment, and evaluations, in `out`'s store."""
    state = {"sessions": 0, "status": "", "env": False, "evaluations": 0}
    if not (out / "kbx.db").exists():
        return state
    with sqlite3.connect(out / "kbx.db", timeout=10) as con:
        try:
            state["sessions"] = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            row = con.execute("SELECT status, env_json FROM sessions "
                              "ORDER BY session_id DESC LIMIT 1").fetchone()
            state["evaluations"] = con.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
        except sqlite3.OperationalError:  # killed before the schema was made
            return state
    if row:
        state["status"] = row[0]
        state["env"] = row[1] not in (None, "", "null", "{}")
    return state


def phase_of(log: pathlib.Path, state: dict, sessions_before: int, total: int) -> str:
    """Where the killed start was, from the store and what it had printed (stderr is unbuffered):
    start: before its session (loading the suite, opening or creating the store, reading SOURCE);
    plan: recording submissions and planning; workers: starting the zygote and the workers;
    evaluating: references and candidates; closing: everything stored, ending the session and
    writing the exports; ended: its session ended (exports written, summary being printed)."""
    if state["sessions"] == sessions_before:
        return "start"
    if state["status"] != "running":
        return "ended"
    if state["evaluations"] == total:
        return "closing"
    if "starting the Python worker" not in log.with_suffix(".err").read_text(errors="replace"):
        return "plan"
    return "evaluating" if state["env"] else "workers"


# -- processes -----------------------------------------------------------------------------------
def parents() -> dict[int, int]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z":  # zombies are reaped below
                out[int(entry)] = int(fields[1])
    return out


def descendants(root: int) -> list[int]:
    ppid = parents()
    found, frontier = [], [root]
    while frontier:
        p = frontier.pop()
        kids = [pid for pid, parent in ppid.items() if parent == p]
        found += kids
        frontier += kids
    return found


def worker_cgroup(pid: int) -> pathlib.Path | None:
    """The pids cgroup a sandboxed worker makes for itself when kbx runs as root (the zygote
    removes it when the worker ends); None where there is no such hierarchy."""
    for root in (pathlib.Path("/sys/fs/cgroup/pids"), pathlib.Path("/sys/fs/cgroup")):
        if (root / "cgroup.procs").exists():
            return root / f"kbx-w{pid}"
    return None


def reap_children() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def cmdline(pid: int) -> str:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kbx", required=True, help="the kbx binary")
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python")
                    if (ROOT / ".venv" / "bin" / "python").exists() else "python3")
    ap.add_argument("--source", default=str(ROOT / "examples"), help="SOURCE of every run")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--kills-per-round", type=int, default=4,
                    help="kills in one output folder before a start runs to completion (default 4)")
    ap.add_argument("--end-kills", type=int, default=1,
                    help="rounds whose first start is killed just after its last evaluation is "
                         "stored, instead of at a random moment (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--orphan-limit", type=float, default=30.0,
                    help="seconds the killed kbx's workers may take to go (default 30)")
    ap.add_argument("--run-limit", type=float, default=900.0, help="seconds for an unkilled start")
    ap.add_argument("--keep", type=pathlib.Path, help="work in this folder and keep it")
    ap.add_argument("extra", nargs="*", help="more `kbx eval` arguments (after --)")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # progress shows up in a log file as it happens
    a.kbx = str(pathlib.Path(a.kbx).resolve())
    if a.kills < 1 or a.kills_per_round < 1:
        ap.error("--kills and --kills-per-round must be at least 1")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("kill9_soak: cannot become a child subreaper; orphans would go unseen", file=sys.stderr)
        return 2
    work = a.keep or pathlib.Path(tempfile.mkdtemp(prefix="kbx-kill9-"))
    if a.keep:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    # A copy, so a rebuild of the binary during the soak does not change the runs (it still finds
    # python/ and suites/ through the source folder compiled into it).
    shutil.copy2(a.kbx, work / "kbx")
    a.kbx = str(work / "kbx")
    try:
        return Soak(a, work).main()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
