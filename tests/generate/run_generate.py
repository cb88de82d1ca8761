#!/usr/bin/env python3
"""End-to-end test of `kbx generate` against a local fake LLM server (no network).

Starts tests/generate/fake_llm_server.py on a free loopback port with faults injected (a 429 with
Retry-After, a 500, a timeout and a malformed JSON body), then:

1. refine, 2 rounds, OpenAI API, over Activation/relu (a correct kernel at once), Math/softmax (a
   wrong kernel first, fixed once the prompt carries kbx's mismatch feedback) and Math/abs (the
   model refuses: no code): checks outcomes, the generation rows' labels, token counts against
   what the server reported, the faults all retried, and the refine prompt's feedback;
2. the same command again (resume): zero new requests, the same verdicts;
3. one-shot over relu and softmax through the Anthropic messages API: labels and outcomes;
4. `kbx analyze --by round` reads the refine run directly;
5. agents (2 workers, 2 rounds) over softmax: both repair, the first correct one alone gets an
   optimise round; best-of-k (2) over relu.

usage: run_generate.py --kbx build/kbx --python .venv/bin/python
"""
import argparse
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
TASKS = "Activation/relu,Math/softmax,Math/abs"


def start_server(work, faults):
    log = work / "server.log"
    out = open(work / "server.out", "w")
    proc = subprocess.Popen([sys.executable, str(HERE / "fake_llm_server.py"), "--log", str(log),
                             "--faults", faults, "--sleep", "4"], stdout=subprocess.PIPE,
                            stderr=out, text=True)
    line = proc.stdout.readline()
    if not line.startswith("port "):
        proc.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return proc, int(line.split()[1]), log


def requests(log):
    if not log.exists():
        return []
    return [json.loads(l) for l in log.read_text().splitlines() if l.strip()]


def kbx_generate(args, port, out, extra, model="fake-coder"):
    cmd = [args.kbx, "generate", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model",
           model, "-o", str(out), "--device", "cpu", "--jobs", "1", "--python", args.python,
           "--request-timeout", "2", "--backoff-ms", "100", "--concurrency", "1",
           "--price-in", "1", "--price-out", "2"] + extra
    env = dict(os.environ, OPENAI_API_KEY="sk-fake", ANTHROPIC_API_KEY="ak-fake")
    started = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    print(f"$ {' '.join(cmd[1:])}\n  exit {p.returncode} in {time.time() - started:.1f} s")
    return p


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


class Checker:
    def __init__(self):
        self.failures = []

    def eq(self, what, got, want):
        if got != want:
            self.failures.append(f"{what}: got {got!r}, want {want!r}")

    def true(self, what, cond):
        if not cond:
            self.failures.append(what)


def check_refine(c, args, port, log, work):
    out = work / "refine"
    p = kbx_generate(args, port, out, ["--method", "refine", "--rounds", "2", "--tasks", TASKS])
    c.eq("refine exit code", p.returncode, 0)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        return
    db = out / "kbx.db"
    gens = rows(db, "SELECT g.task_key, g.round, g.candidate, g.method, g.model, g.status, "
                    "COALESCE(e.outcome, '-') FROM generations g LEFT JOIN evaluations e "
                    "USING (submission_id) ORDER BY g.task_key, g.round")
    c.eq("refine generations", gens, [
        ("Activation/relu.py", 0, 0, "refine", "fake-coder", "code", "ok"),
        ("Math/abs.py", 0, 0, "refine", "fake-coder", "no_code", "-"),
        ("Math/abs.py", 1, 0, "refine", "fake-coder", "no_code", "-"),
        ("Math/softmax.py", 0, 0, "refine", "fake-coder", "code", "incorrect"),
        ("Math/softmax.py", 1, 0, "refine", "fake-coder", "code", "ok"),
    ])
    parent = rows(db, "SELECT parent_submission_id = (SELECT submission_id FROM generations "
                      "WHERE task_key = 'Math/softmax.py' AND round = 0) FROM generations "
                      "WHERE task_key = 'Math/softmax.py' AND round = 1")
    c.eq("round 1's parent is round 0's candidate", parent, [(1,)])
    reqs = requests(log)
    faults = sorted(r["fault"] for r in reqs if r["fault"])
    c.eq("faults served", faults, ["429", "500", "malformed", "timeout"])
    answered = [r for r in reqs if not r["fault"]]
    c.eq("answered requests", len(answered), 5)
    c.true("every request carried the key", all(r["auth"] == "Bearer sk-fake" for r in reqs))
    refines = [r for r in answered if r["refine"]]
    c.eq("refine prompts (softmax round 1)", [r["task"] for r in refines], ["softmax"])
    if refines:
        c.true("the refine prompt carries the previous candidate and the mismatch figures",
               "BUG: no max subtraction" in refines[0]["prompt"] and
               "max abs error" in refines[0]["prompt"])
    tokens = rows(db, "SELECT sum(tokens_in), sum(tokens_out), count(*), sum(cost_usd) "
                      "FROM llm_responses")[0]
    want_in = sum(r["tokens_in"] for r in answered)
    want_out = sum(r["tokens_out"] for r in answered)
    c.eq("tokens stored", tokens[:3], (want_in, want_out, 5))
    c.true("cost from the prices", abs(tokens[3] - (want_in * 1 + want_out * 2) / 1e6) < 1e-12)
    c.true("progress shows the token spend",
           f"this run so far {want_in} in / {want_out} out" in p.stderr)
    results = json.loads((out / "kbx-results.json").read_text())["submissions"]
    labels = sorted((m["file"], m["labels"]["round"], m["labels"]["candidate"], m["labels"]["method"],
                     m["labels"]["model"], m["outcome"]) for m in results if "labels" in m)
    c.eq("kbx-results.json labels", labels, [
        ("Activation/relu.py", "0", "0", "refine", "fake-coder", "ok"),
        ("Math/softmax.py", "0", "0", "refine", "fake-coder", "incorrect"),
        ("Math/softmax.py", "1", "0", "refine", "fake-coder", "ok"),
    ])
    # Resume: the same command makes no request and keeps every verdict.
    before = len(reqs)
    p2 = kbx_generate(args, port, out, ["--method", "refine", "--rounds", "2", "--tasks", TASKS])
    c.eq("resume exit code", p2.returncode, 0)
    c.eq("requests made by the resume", len(requests(log)) - before, 0)
    c.true("the resume says it sent nothing", "0 HTTP requests, 5 answers from the cache" in p2.stdout)
    c.eq("evaluations after the resume", rows(db, "SELECT count(*) FROM evaluations"), [(3,)])
    # Another model on the same folder is refused before any request is sent.
    before = len(requests(log))
    p3 = kbx_generate(args, port, out, ["--method", "refine", "--rounds", "2", "--tasks", TASKS],
                      model="other-model")
    c.eq("another model on the folder: exit code", p3.returncode, 2)
    c.true("the refusal names the label", "other-model" in p3.stderr)
    c.eq("requests made by the refused command", len(requests(log)) - before, 0)
    # The iteration analysis groups by the candidates' own labels.
    a = subprocess.run([args.kbx, "analyze", str(out), "--by", "round", "--json"],
                       capture_output=True, text=True)
    c.eq("analyze exit code", a.returncode, 0)
    if a.returncode == 0:
        groups = {g["round"]: (g["submissions"], g["exe_pass"])
                  for g in json.loads(a.stdout).get("groups", [])}
        c.eq("analyze --by round: (submissions, exe passes) per round", groups,
             {"0": (2, 1), "1": (1, 1)})


def check_anthropic(c, args, port, log, work):
    out = work / "oneshot"
    before = len(requests(log))
    p = kbx_generate(args, port, out, ["--api", "anthropic", "--method", "one-shot", "--tasks",
                                       "Activation/relu,Math/softmax"])
    c.eq("one-shot exit code", p.returncode, 0)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        return
    new = requests(log)[before:]
    c.eq("anthropic requests", [(r["api"], r["path"]) for r in new],
         [("anthropic", "/v1/messages")] * 2)
    c.true("the Anthropic key header was sent", all(r["auth"] == "ak-fake" for r in new))
    gens = rows(out / "kbx.db", "SELECT g.task_key, g.round, g.method, e.outcome FROM generations g "
                                "JOIN evaluations e USING (submission_id) ORDER BY g.task_key")
    c.eq("one-shot verdicts", gens, [("Activation/relu.py", 0, "one-shot", "ok"),
                                     ("Math/softmax.py", 0, "one-shot", "incorrect")])


def check_agents(c, args, port, log, work):
    out = work / "agents"
    before = len(requests(log))
    p = kbx_generate(args, port, out, ["--method", "agents", "--candidates", "2", "--rounds", "2",
                                       "--tasks", "Math/softmax"])
    c.eq("agents exit code", p.returncode, 0)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        return
    gens = rows(out / "kbx.db", "SELECT g.round, g.candidate, g.method, g.temperature, e.outcome "
                                "FROM generations g JOIN evaluations e USING (submission_id) "
                                "ORDER BY g.round, g.candidate")
    # Both workers fail, both repair; worker 0 is the first correct one: it alone gets an
    # optimise round, worker 1 stops.
    c.eq("agents candidates", gens, [(0, 0, "agents", 0.2, "incorrect"), (0, 1, "agents", 1.0, "incorrect"),
                                     (1, 0, "agents", 0.2, "ok"), (1, 1, "agents", 1.0, "ok"),
                                     (2, 0, "agents", 0.2, "ok")])
    new = requests(log)[before:]
    c.eq("agents requests (5 answers)", len(new), 5)
    c.true("the optimise round asked to make the kernel faster",
           any("Make it faster" in r["prompt"] for r in new))


def check_best_of_k(c, args, port, log, work):
    out = work / "best"
    p = kbx_generate(args, port, out, ["--method", "best-of-k", "--candidates", "2", "--tasks",
                                       "Activation/relu"])
    c.eq("best-of-k exit code", p.returncode, 0)
    gens = rows(out / "kbx.db", "SELECT g.round, g.candidate, g.method, g.temperature, e.outcome "
                                "FROM generations g JOIN evaluations e USING (submission_id) "
                                "ORDER BY g.candidate")
    c.eq("best-of-k candidates", gens, [(0, 0, "best-of-k", 0.8, "ok"), (0, 1, "best-of-k", 0.8, "ok")])


def check_merge(c, args, port, work):
    """Two generate runs of other models and methods hold rows for the same task, round and
    candidate (Activation/relu, 0, 0): kbx merge --combine keeps both runs' rows (schema 9's
    run_key; before it, the merge failed on the generations table's key)."""
    p = kbx_generate(args, port, work / "variant", ["--method", "one-shot", "--tasks", "Activation/relu"],
                     model="variant-b")
    c.eq("variant run exit code", p.returncode, 0)
    out = work / "merged"
    p = subprocess.run([args.kbx, "merge", str(work / "variant"), str(work / "best"), "-o", str(out),
                        "--combine"], capture_output=True, text=True, timeout=300)
    print(f"$ kbx merge oneshot best --combine\n  exit {p.returncode}")
    c.eq("merge --combine exit code", p.returncode, 0)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        return
    got = rows(out / "kbx.db", "SELECT json_extract(run_key, '$.method'), "
                               "json_extract(run_key, '$.model'), task_key, round, candidate "
                               "FROM generations ORDER BY 1, 5")
    c.eq("merged generation rows", got, [("best-of-k", "fake-coder", "Activation/relu.py", 0, 0),
                                         ("best-of-k", "fake-coder", "Activation/relu.py", 0, 1),
                                         ("one-shot", "variant-b", "Activation/relu.py", 0, 0)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", required=True)
    ap.add_argument("--python", required=True)
    args = ap.parse_args()
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="kbx-gen-e2e-") as tmp:
        work = pathlib.Path(tmp)
        server, port, log = start_server(work, "429,500,timeout,malformed")
        try:
            check_refine(c, args, port, log, work)
            check_anthropic(c, args, port, log, work)
            check_agents(c, args, port, log, work)
            check_best_of_k(c, args, port, log, work)
            check_merge(c, args, port, work)
        finally:
            server.kill()
            server.wait()
    for f in c.failures:
        print("FAIL:", f)
    print("generate e2e:", "ok" if not c.failures else f"{len(c.failures)} failures")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
