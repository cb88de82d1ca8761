#!/usr/bin/env python3
"""End-to-end runner: drives the real kbx binary through data-driven .case files (STYLE.md section 7).

A .case file is a sequence of steps; each step may be followed by a `----` block of expectations.

  # name: ...                      comment lines (# ...) are ignored
  write REL_PATH                   write the following lines, up to a line `end`, to {tmp}/REL_PATH
  append [repeat=N] REL_PATH       the same, appended, N times over (default 1); {n} is 1, 2, ... N
  run [exit=N] COMMAND             run COMMAND (shell words; substitutions below); default exit 0
  kill9_after N COMMAND            start COMMAND, wait until its {out}/kbx.db holds N evaluations,
                                   then SIGKILL it (it must still be running)
  background COMMAND               start COMMAND and go on with the next steps while it runs
                                   (one at a time; killed if the case ends first)
  wait_until EXPECTATION           poll EXPECTATION (any of those below but exit) every 0.1 s until
                                   it holds, for at most 300 s; the background command must still
                                   be running meanwhile
  wait [exit=N|exit=any]           wait for the background command; its exit status and output
                                   are the last step's (default expectation: exit 0)
  kill_tree SIGNAL                 send SIGNAL (TERM, INT, KILL) to the background command and
                                   every process descended from it at once, as a batch system's
                                   scancel does (Slurm's proctrack/linuxproc walks the tree too)
  ----                             expectations about the last step:
    result FILE FIELD VALUE        kbx-results.json's record of a submission for task FILE (FILE#K:
                                   its K-th, from 0)
    count_results N                number of submission records in kbx-results.json
    kbx_summary FIELD VALUE        a field of kbx-results.json's summary (dotted paths:
                                   categories.Math.total)
    metric FILE FIELD VALUE        metrics.json's (the public shape's) record of task FILE
    count_metrics N                number of tasks in metrics.json
    summary FIELD VALUE            a field of summary.json (the public shape)
    stdout contains TEXT / stderr contains TEXT / stderr lacks TEXT
    db SQL => VALUE                first column of the first row of SQL on {out}/kbx.db
    exit N                         the exit status (same as run exit=N)

Substitutions: {file:PATH} a file's content, {json:PATH} the same as a JSON string, {kbx} the binary, {python} the interpreter, {root} the repository, {tmp} the case's
fresh temporary folder, {out} = {tmp}/out, {examples} = {root}/examples, {cache} a cache folder
shared by the cases of one ctest run (reference outputs).
In write and append bodies also: {repeat:N:TEXT} TEXT (no '}') N times, so a case can hold a 50 MB
line without the repository holding it; {bytes:HEX} raw bytes (invalid UTF-8, binary garbage).
VALUE is parsed as JSON when it can be (true, 3, 1.5, "x"), else compared as a string.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


STEPS = ("write", "run", "kill9_after", "background", "wait_until", "wait", "kill_tree")


class CaseFailure(Exception):
    pass


def parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Runner:
    def __init__(self, kbx: str, python: str, case: pathlib.Path, tmp: pathlib.Path, cache: pathlib.Path):
        self.case = case
        self.tmp = tmp
        self.vars = {
            "kbx": kbx, "python": python, "root": str(ROOT), "tmp": str(tmp), "out": str(tmp / "out"),
            "examples": str(ROOT / "examples"), "cache": str(cache),
        }
        self.last: subprocess.CompletedProcess | None = None
        self.expected_exit = 0
        self.background: tuple[subprocess.Popen, list[str], pathlib.Path] | None = None

    def sub(self, text: str) -> str:
        for k, v in self.vars.items():
            text = text.replace("{" + k + "}", v)
        # {file:PATH}: the file's content; {json:PATH}: the same as a JSON string literal.
        text = re.sub(r"\{file:([^}]+)\}", lambda m: pathlib.Path(m.group(1)).read_text().rstrip("\n"), text)
        return re.sub(r"\{json:([^}]+)\}", lambda m: json.dumps(pathlib.Path(m.group(1)).read_text()), text)

    def body_bytes(self, lines: list[str], n: int = 1) -> bytes:
        """A write/append body with every substitution made, as the bytes to write."""
        text = self.sub("\n".join(lines) + "\n").replace("{n}", str(n))
        text = re.sub(r"\{repeat:(\d+):([^}]*)\}", lambda m: m.group(2) * int(m.group(1)), text)
        parts = re.split(r"\{bytes:([0-9A-Fa-f ]*)\}", text)
        # re.split alternates text and captured hex: even indexes are text, odd ones raw bytes.
        return b"".join(bytes.fromhex(p) if i % 2 else p.encode() for i, p in enumerate(parts))

    def env(self) -> dict:
        env = dict(os.environ)
        env["KBX_PYTHON"] = self.vars["python"]
        env["KBX_CACHE_DIR"] = self.vars["cache"]
        env["NO_COLOR"] = "1"
        return env

    # -- steps ---------------------------------------------------------------------------
    def step_run(self, rest: str) -> None:
        self.expected_exit = 0
        if rest.startswith("exit="):
            code, rest = rest.split(" ", 1)
            self.expected_exit = int(code[len("exit="):])
        argv = shlex.split(self.sub(rest))
        started = time.time()
        self.last = subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=900)
        print(f"$ {' '.join(argv)}   [exit {self.last.returncode}, {time.time() - started:.1f} s]")
        self.check_exit(self.expected_exit)

    def step_kill9_after(self, rest: str) -> None:
        n, command = rest.split(" ", 1)
        argv = shlex.split(self.sub(command))
        db = pathlib.Path(self.vars["out"]) / "kbx.db"
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env())
        deadline = time.time() + 600
        while time.time() < deadline:
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise CaseFailure(f"kill9_after: the command finished before {n} evaluations:\n{err}")
            if self.count_evaluations(db) >= int(n):
                break
            time.sleep(0.05)
        else:
            proc.kill()
            raise CaseFailure(f"kill9_after: {n} evaluations never appeared")
        os.kill(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        self.last = subprocess.CompletedProcess(argv, -9, out, err)
        self.expected_exit = -9
        print(f"$ {' '.join(argv)}   [killed -9 after {n} evaluations]")

    def step_background(self, command: str) -> None:
        if self.background is not None:
            raise CaseFailure("background: one background command at a time (add a `wait` first)")
        argv = shlex.split(self.sub(command))
        logs = self.tmp / f"background-{time.time_ns()}"
        logs.mkdir()
        with open(logs / "stdout", "w") as out, open(logs / "stderr", "w") as err:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=self.env())
        self.background = (proc, argv, logs)
        print(f"$ {' '.join(argv)} &   [pid {proc.pid}]")

    def step_wait_until(self, expectation: str) -> None:
        if expectation.split(" ", 1)[0] == "exit":
            raise CaseFailure("wait_until: an exit status is not something to wait for")
        started = time.time()
        while True:
            try:
                self.expect(expectation)
                break
            except (CaseFailure, sqlite3.Error, OSError, ValueError, KeyError, TypeError) as e:
                if self.background is not None and self.background[0].poll() is not None:
                    raise CaseFailure(f"wait_until {expectation!r}: the background command ended "
                                      f"first (exit {self.background[0].returncode}); last check: {e}")
                if time.time() - started > 300:
                    raise CaseFailure(f"wait_until {expectation!r}: still false after 300 s: {e}")
                time.sleep(0.1)
        print(f"  [{expectation} after {time.time() - started:.1f} s]")

    def step_wait(self, rest: str = "") -> None:
        if self.background is None:
            raise CaseFailure("wait: no background command")
        proc, argv, logs = self.background
        self.background = None
        started = time.time()
        code = proc.wait(timeout=900)
        out, err = (logs / "stdout").read_text(), (logs / "stderr").read_text()
        self.last = subprocess.CompletedProcess(argv, code, out, err)
        print(f"$ wait   [exit {code} after {time.time() - started:.1f} s more]")
        want = rest.strip()[len("exit="):] if rest.strip().startswith("exit=") else "0"
        self.expected_exit = code if want == "any" else int(want)
        self.check_exit(self.expected_exit)

    def step_kill_tree(self, rest: str) -> None:
        if self.background is None:
            raise CaseFailure("kill_tree: no background command")
        sig = getattr(signal, "SIG" + rest.strip())
        root = self.background[0].pid
        children: dict[int, list[int]] = {}
        for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2:].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        tree, todo = [], [root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        for pid in tree:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        print(f"  [SIG{rest.strip()} to {len(tree)} processes of pid {root}'s tree]")

    def stop_background(self) -> None:
        """Kills a background command the case left running (a failed case)."""
        if self.background is not None:
            self.background[0].kill()
            self.background[0].wait()
            self.background = None

    @staticmethod
    def count_evaluations(db: pathlib.Path) -> int:
        if not db.exists():
            return 0
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
                return con.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
        except sqlite3.Error:
            return 0

    # -- expectations --------------------------------------------------------------------
    def check_exit(self, code: int) -> None:
        if self.last.returncode != code:
            raise CaseFailure(f"exit status {self.last.returncode}, expected {code}\n"
                              f"--- stdout\n{self.last.stdout}\n--- stderr\n{self.last.stderr}")

    def load_json(self, name: str):
        path = pathlib.Path(self.vars["out"]) / name
        if not path.exists():
            raise CaseFailure(f"{name} was not written")
        return json.loads(path.read_text())

    def expect(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        if kind == "exit":
            self.check_exit(int(rest))
        elif kind == "result":
            file, field, value = rest.split(" ", 2)
            self.expect_result(file, field, parse_value(self.sub(value)))
        elif kind == "metric":
            file, field, value = rest.split(" ", 2)
            self.expect_public_metric(file, field, parse_value(self.sub(value)))
        elif kind in ("summary", "kbx_summary"):
            field, value = rest.split(" ", 1)
            node = (self.load_json("summary.json") if kind == "summary"
                    else self.load_json("kbx-results.json")["summary"])
            for part in field.split("."):
                node = node[part]
            self.equal(f"{kind} {field}", node, parse_value(value))
        elif kind == "count_results":
            self.equal("kbx-results.json submissions",
                       len(self.load_json("kbx-results.json")["submissions"]), int(rest))
        elif kind == "count_metrics":
            self.equal("metrics.json tasks", len(self.load_json("metrics.json")), int(rest))
        elif kind in ("stdout", "stderr"):
            verb, _, text = rest.partition(" ")
            stream = self.last.stdout if kind == "stdout" else self.last.stderr
            text = self.sub(text)
            if verb == "contains" and text not in stream:
                raise CaseFailure(f"{kind} lacks {text!r}:\n{stream}")
            if verb == "lacks" and text in stream:
                raise CaseFailure(f"{kind} contains {text!r}:\n{stream}")
        elif kind == "db":
            sql, _, value = rest.partition(" => ")
            db = pathlib.Path(self.vars["out"]) / "kbx.db"
            if not db.exists():  # sqlite3 would create an empty one
                raise CaseFailure(f"{db} does not exist")
            with sqlite3.connect(db, timeout=5) as con:
                row = con.execute(sql).fetchone()
            self.equal(f"db {sql}", row[0] if row else None, parse_value(value))
        else:
            raise CaseFailure(f"unknown expectation {line!r}")

    def expect_result(self, file: str, field: str, value) -> None:
        index = 0
        if "#" in file:
            file, k = file.split("#")
            index = int(k)
        entries = [m for m in self.load_json("kbx-results.json")["submissions"] if m["file"] == file]
        if len(entries) <= index:
            raise CaseFailure(f"kbx-results.json has {len(entries)} records for {file}")
        entry = entries[index]
        if field not in entry:
            raise CaseFailure(f"kbx-results.json record for {file} has no field {field!r}")
        self.equal(f"{file} {field} (detail: {entry.get('detail', '')})", entry[field], value)

    def expect_public_metric(self, file: str, field: str, value) -> None:
        metrics = self.load_json("metrics.json")
        if file not in metrics:
            raise CaseFailure(f"metrics.json has no record for {file}: {sorted(metrics)}")
        if field not in metrics[file]:
            raise CaseFailure(f"metrics.json record for {file} has no field {field!r}")
        self.equal(f"metrics.json {file} {field} (error: {metrics[file].get('error', '')})",
                   metrics[file][field], value)

    @staticmethod
    def equal(what: str, got, want) -> None:
        if got != want:
            raise CaseFailure(f"{what}: got {got!r}, expected {want!r}")

    # -- driver --------------------------------------------------------------------------
    def run(self) -> None:
        lines = self.case.read_text().splitlines()
        i = 0
        in_expect = False
        while i < len(lines):
            line = lines[i].rstrip()
            i += 1
            if not line.strip() or line.lstrip().startswith("#"):
                in_expect = False if not line.strip() else in_expect
                continue
            if line == "----":
                in_expect = True
                continue
            verb, _, rest = line.partition(" ")
            if in_expect and verb not in STEPS:
                self.expect(line.strip())
                continue
            in_expect = False
            if verb in ("write", "append"):
                body = []
                while lines[i] != "end":
                    body.append(lines[i])
                    i += 1
                i += 1
                repeat = 1
                if rest.startswith("repeat="):
                    count, rest = rest.split(" ", 1)
                    repeat = int(count[len("repeat="):])
                path = self.tmp / rest
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "wb" if verb == "write" else "ab") as f:
                    for n in range(1, repeat + 1):
                        f.write(self.body_bytes(body, n))
            elif verb == "run":
                self.step_run(rest)
            elif verb == "kill9_after":
                self.step_kill9_after(rest)
            elif verb == "background":
                self.step_background(rest)
            elif verb == "wait_until":
                self.step_wait_until(rest)
            elif verb == "wait":
                self.step_wait(rest)
            elif verb == "kill_tree":
                self.step_kill_tree(rest)
            else:
                raise CaseFailure(f"{self.case.name}:{i}: unknown step {verb!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description="run kbx end-to-end .case files")
    ap.add_argument("--kbx", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders")
    ap.add_argument("cases", nargs="+", type=pathlib.Path)
    a = ap.parse_args()
    cache = pathlib.Path(os.environ.get("KBX_E2E_CACHE", tempfile.gettempdir())) / "kbx-e2e-cache"
    failed = 0
    for case in a.cases:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="kbx-e2e-"))
        runner = Runner(a.kbx, a.python, case, tmp, cache)
        try:
            runner.run()
            if runner.background is not None:
                raise CaseFailure("the case ends with its background command still running (add `wait`)")
            print(f"PASS {case.name}")
        except (CaseFailure, subprocess.TimeoutExpired) as e:
            failed += 1
            print(f"FAIL {case.name}: {e}")
        finally:
            runner.stop_background()
            if not a.keep:
                subprocess.run(["rm", "-rf", str(tmp)])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
