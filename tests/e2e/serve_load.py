#!/usr/bin/env python3
"""kbx serve end to end on the CPU: the real binary, the real worker, Triton's interpreter.

1. `kbx eval` judges the bundled examples (7 correct, 5 broken: crash, hang, syntax, torch-only,
   wrong) as a JSONL source: the reference verdicts.
2. `kbx serve` (loopback, no token) gets 1,000 requests for the same 12 codes from 50 concurrent
   clients (half through python/kbx_client.py): none lost, every verdict equal to eval's (each code
   is evaluated once; repeats are answered from the store or join the evaluation in flight), the
   crash and the hang did not take the service down, and the store holds every request.
3. Malformed requests get 400 (413 for oversized code) with a message naming the field.
4. A second server with a bearer token, one evaluation thread and a queue of one: 401 without
   (or with a wrong) token; 429 with Retry-After once a hang fills the thread and the queue.
5. --listen on a non-loopback address without --token-env is refused before anything starts.
Prints one line per check; exits non-zero on the first failure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from kbx_client import Client, KbxError  # noqa: E402

COMPARED = ("outcome", "reason", "detail", "call_ok", "exe_ok", "triton_ok", "perf_ok",
            "perf_note", "speedup_verdict", "file", "category")


def fail(message: str) -> None:
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def check(cond: bool, message: str) -> None:
    if not cond:
        fail(message)
    print(f"ok: {message}", flush=True)


def examples() -> list[tuple[str, str]]:
    out = []
    for folder in ("correct", "broken"):
        for path in sorted((ROOT / "examples" / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / "examples" / folder).parts
            key = "/".join(parts[-2:])  # broken/<kind>/<Category>/<task>.py
            out.append((key, path.read_text()))
    return out


def reference_verdicts(kbx: str, tmp: pathlib.Path, subs, env) -> list[dict]:
    src = tmp / "subs.jsonl"
    src.write_text("".join(json.dumps({"predict": code, "file": key}) + "\n" for key, code in subs))
    out = tmp / "eval"
    r = subprocess.run([kbx, "eval", str(src), "-o", str(out), "--device", "cpu", "--timeout", "10",
                        "-j", "2"], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode not in (0, 1):
        fail(f"kbx eval exited {r.returncode}:\n{r.stderr[-3000:]}")
    records = json.loads((out / "kbx-results.json").read_text())["submissions"]
    check(len(records) == len(subs), f"kbx eval judged the {len(subs)} examples")
    return records


class Server:
    def __init__(self, kbx: str, out: pathlib.Path, env: dict, *extra: str, timeout_s: int = 10):
        self.proc = subprocess.Popen([kbx, "serve", "-o", str(out), "--device", "cpu",
                                      "--listen", "127.0.0.1:0", "--timeout", str(timeout_s), *extra],
                                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                     env=env)
        self.log: list[str] = []
        deadline = time.time() + 300
        self.url = None
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                fail("kbx serve ended before listening:\n" + "".join(self.log))
            self.log.append(line)
            m = re.search(r"listening on (http://[0-9.]+:\d+)", line)
            if m:
                self.url = m.group(1)
                break
        if self.url is None:
            fail("kbx serve did not start listening within 300 s")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.log.append(line)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


def raw(url: str, method: str, path: str, body: bytes | None = None, headers=None):
    req = urllib.request.Request(url + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}"), dict(e.headers)


def load(server: Server, subs, expected: list, requests: int, clients: int) -> None:
    """Sends `requests` requests for `subs` from `clients` threads; checks each verdict."""
    rng = random.Random(7)
    plan = [i % len(subs) for i in range(requests)]  # every code at least once
    rng.shuffle(plan)
    client = Client(server.url, timeout=600)
    lost, wrong = [], []
    started = time.time()

    def one(i: int):
        key, code = subs[plan[i]]
        if i % 2 == 0:
            got = client.evaluate(key, code, label=f"load-{i}", metadata={"i": i})
        else:
            status, got, _ = raw(server.url, "POST", "/v1/evaluate",
                                 json.dumps({"task": key, "code": code}).encode(),
                                 {"Content-Type": "application/json"})
            if status != 200:
                return i, key, f"HTTP {status}: {got}"
        return i, key, got

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for i, key, got in pool.map(one, range(requests)):
            if isinstance(got, str):
                lost.append((i, got))
                continue
            v, want = got["verdict"], expected[plan[i]]
            diff = {f: (v.get(f), want.get(f)) for f in COMPARED if v.get(f) != want.get(f)}
            if diff:
                wrong.append((key, diff))
    took = time.time() - started
    check(not lost, f"{requests} requests from {clients} concurrent clients, none lost "
          f"({requests / took:.0f}/s over {took:.1f} s){'' if not lost else ': ' + str(lost[:3])}")
    check(not wrong, "every verdict equals kbx eval's" + ("" if not wrong else f": {wrong[:3]}"))


def malformed(url: str) -> None:
    cases = [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"code": "x = 1"}).encode(), "'task'"),
        (json.dumps({"task": "Math/softmax.py"}).encode(), "'code'"),
        (json.dumps({"task": "Math/softmax.py", "code": 3}).encode(), "'code' must be a string"),
        (json.dumps({"task": "Math/softmax.py", "code": "  "}).encode(), "'code' is empty"),
        (json.dumps({"task": "Math/nope.py", "code": "x = 1"}).encode(), "field 'task'"),
        (json.dumps({"task": "Math/softmax.py", "code": "x", "perf": "yes"}).encode(), "'perf'"),
        (json.dumps({"task": "Math/softmax.py", "code": "x", "prf": True}).encode(), "unknown field 'prf'"),
        (json.dumps({"task": "Math/softmax.py", "code": "x", "metadata": [1]}).encode(), "'metadata'"),
    ]
    for body, needle in cases:
        status, got, _ = raw(url, "POST", "/v1/evaluate", body, {"Content-Type": "application/json"})
        if status != 400 or needle not in got.get("error", ""):
            fail(f"malformed {body[:60]!r}: expected 400 naming {needle!r}, got {status} {got}")
    big = json.dumps({"task": "Math/softmax.py", "code": "#" * (300 << 10)}).encode()
    status, got, _ = raw(url, "POST", "/v1/evaluate", big, {"Content-Type": "application/json"})
    check(status == 413 and "'code'" in got.get("error", ""), "oversized code gets 413")
    check(True, f"{len(cases)} malformed requests get 400 with a message naming the field")
    status, got, _ = raw(url, "GET", "/v1/nothing")
    check(status == 404 and "/v1/evaluate" in got.get("error", ""), "an unknown endpoint gets 404")


def endpoints(url: str) -> None:
    c = Client(url)
    tasks = c.tasks()
    check(any(t["key"] == "Math/softmax.py" for t in tasks), f"GET /v1/tasks lists {len(tasks)} tasks")
    t = c.task("Math/softmax.py")
    check(t["key"] == "Math/softmax.py" and len(t["cases"]) > 0, "GET /v1/tasks/Math/softmax.py")
    status, got, _ = raw(url, "GET", "/v1/tasks/Math/nope.py")
    check(status == 404, "GET /v1/tasks/<unknown> gets 404")


def store_checks(out: pathlib.Path, requests: int, distinct: int) -> None:
    db = sqlite3.connect(out / "kbx.db")
    n_ok = db.execute("SELECT COUNT(*) FROM serve_requests WHERE path = '/v1/evaluate' "
                      "AND status = 200").fetchone()[0]
    n_eval = db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    served = dict(db.execute("SELECT served_from, COUNT(*) FROM serve_requests WHERE status = 200 "
                             "AND path = '/v1/evaluate' GROUP BY served_from").fetchall())
    n400 = db.execute("SELECT COUNT(*) FROM serve_requests WHERE status = 400").fetchone()[0]
    labelled = db.execute("SELECT COUNT(*) FROM serve_requests WHERE label LIKE 'load-%'").fetchone()[0]
    check(n_ok == requests and n_eval == distinct,
          f"the store holds {n_ok} answered evaluate requests and {n_eval} evaluations "
          f"(served: {served}; {n400} refused with 400; {labelled} labelled)")


def token_and_queue(kbx: str, tmp: pathlib.Path, env: dict, hang: tuple[str, str]) -> None:
    env = dict(env, KBX_TEST_TOKEN="s3cret")
    server = Server(kbx, tmp / "serve2", env, "--token-env", "KBX_TEST_TOKEN", "--queue", "1",
                    "-j", "1", timeout_s=5)
    try:
        status, got, headers = raw(server.url, "GET", "/v1/health")
        check(status == 401 and "Bearer" in got.get("error", ""), "no token: 401")
        status, _, _ = raw(server.url, "GET", "/v1/health", None, {"Authorization": "Bearer nope"})
        check(status == 401, "a wrong token: 401")
        try:
            Client(server.url, token=None).evaluate("Math/softmax.py", "x = 1")
            fail("an evaluate without a token was accepted")
        except KbxError as e:
            check(e.status == 401, "an evaluate without a token: 401")
        c = Client(server.url, token="s3cret", retries=0)
        check(c.health()["queue_capacity"] == 1, "the right token: 200")
        key, code = hang
        statuses, retry_after = [], []

        def send(i: int):
            try:
                c.evaluate(key, code + f"\n# variant {i}\n")
                return 200, None
            except KbxError as e:
                return e.status, e.retry_after

        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            first = pool.submit(send, 0)
            time.sleep(1.5)  # the first hang holds the one evaluation thread
            rest = [pool.submit(send, i) for i in range(1, 6)]
            for f in [first, *rest]:
                s, r = f.result()
                statuses.append(s)
                retry_after.append(r)
        check(429 in statuses and all(r is not None and r >= 1 for s, r in zip(statuses, retry_after)
                                      if s == 429),
              f"a full queue answers 429 with Retry-After (statuses {sorted(statuses)})")
        check(server.alive(), "the server survived the hangs")
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=50)
    args = ap.parse_args()
    tmp = pathlib.Path(args.tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, KBX_PYTHON=args.python, NO_COLOR="1")
    subs = examples()
    records = reference_verdicts(args.kbx, tmp, subs, env)
    check([r["file"] for r in records] == [k for k, _ in subs], "kbx eval kept the source order")
    outcomes = sorted({r["outcome"] for r in records})
    check({"ok", "crashed", "timeout"} <= set(outcomes), f"the examples' outcomes: {outcomes}")

    r = subprocess.run([args.kbx, "serve", "-o", str(tmp / "refused"), "--listen", "0.0.0.0:0"],
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 2 and "--token-env" in r.stderr,
          "--listen 0.0.0.0 without a token is refused (exit 2)")

    server = Server(args.kbx, tmp / "serve", env, "-j", "2")
    try:
        endpoints(server.url)
        malformed(server.url)
        load(server, subs, records, args.requests, args.clients)
        check(server.alive(), "the server is still up after the crash and the hang")
        hang = next(sub for sub, r in zip(subs, records) if r["outcome"] == "timeout")
        v = Client(server.url).evaluate(*hang, timeout_s=2)
        check(v["verdict"]["outcome"] == "timeout" and "within 2 s" in v["verdict"]["detail"]
              and v["served_from"] == "evaluated",
              "a request's timeout_s shortens its stage deadline (a verdict of its own)")
        h = Client(server.url).health()
        check(h["queue_depth"] == 0 and h["evaluated"] == len(subs) + 1,
              f"health: {h['evaluated']} evaluated, queue {h['queue_depth']}/{h['queue_capacity']}, "
              f"{h['workers']} workers on {h['device']}")
    finally:
        code = server.stop()
    check(code == 0, f"kbx serve stops cleanly on SIGTERM (exit {code})")
    store_checks(tmp / "serve", args.requests + 1, len(subs) + 1)
    hang = next(sub for sub, r in zip(subs, records) if r["outcome"] == "timeout")
    token_and_queue(args.kbx, tmp, env, hang)
    print(f"serve load: {args.requests} requests, 0 lost, verdicts equal to kbx eval")


if __name__ == "__main__":
    main()
