"""The Python API (python/kbx) against a fake kbx binary: arguments, results, errors, load_run."""

from __future__ import annotations

import json
import sqlite3
import stat
import sys

import pytest

import kbx

# A stand-in for the binary: records its argv, answers `suite list`, and for `eval` writes a
# kbx-results.json and a kbx.db shaped like the real ones (docs/metrics.md, docs/store-schema.md).
FAKE = r'''#!PYTHON
import json, os, sqlite3, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps(args) + "\n")
if args[:2] == ["suite", "list"]:
    print(json.dumps([{"key": "Math/softmax.py", "entry": "softmax", "category": "Math", "difficulty": 4,
                       "signature": "softmax(input, dim)", "dtypes": ["float32"], "cases": 11,
                       "workloads": 8, "version": "abc"}]))
    sys.exit(0)
if args[0] == "eval":
    out = args[args.index("-o") + 1]
    os.makedirs(out)
    sub = json.loads(open(args[1]).read())
    if sub["file"] == "Nope/x.py":
        json.dump({"format": "kbx-results/1", "summary": {"input_errors": [
            {"origin": "line 1", "message": "unknown task 'Nope/x.py'"}]}, "submissions": []},
            open(os.path.join(out, "kbx-results.json"), "w"))
        sys.exit(1)
    record = {"file": sub["file"], "submission_id": "s1", "outcome": "incorrect", "reason": "value_mismatch",
              "detail": "1 of 1 cases differ", "call_ok": True, "exe_ok": False, "triton_ok": True,
              "perf_ok": False, "perf_note": "", "speedup": 0.0, "runtime_ms": 0.0, "ref_runtime_ms": 0.0,
              "speedup_ci_low": None, "speedup_ci_high": None, "speedup_verdict": "none", "code": sub["predict"]}
    json.dump({"format": "kbx-results/1", "summary": {"total": 1}, "submissions": [record]},
              open(os.path.join(out, "kbx-results.json"), "w"))
    db = sqlite3.connect(os.path.join(out, "kbx.db"))
    db.executescript("""
      CREATE TABLE submissions (submission_id TEXT PRIMARY KEY, task_key TEXT, origin TEXT, ordinal INTEGER, code TEXT);
      CREATE TABLE evaluations (submission_id TEXT PRIMARY KEY, outcome TEXT, reason TEXT, detail TEXT,
        call_ok INTEGER, exe_ok INTEGER, triton_ok INTEGER, perf_ok INTEGER, perf_note TEXT, device TEXT,
        rules TEXT, time_queue_ms REAL, time_load_ms REAL, time_cases_ms REAL, time_compare_ms REAL,
        time_perf_ms REAL, time_total_ms REAL, log_tail TEXT);
      CREATE TABLE cases (submission_id TEXT, case_index INTEGER, name TEXT, status TEXT, reason TEXT,
        detail TEXT, output_path TEXT, err_abs_max REAL, err_rel_max REAL, mismatch_count INTEGER,
        first_mismatch_index INTEGER, time_ms REAL);
      INSERT INTO submissions VALUES ('s1', 'Math/softmax.py', 'submission.jsonl:1', 0, 'code');
      INSERT INTO submissions VALUES ('s2', 'Math/relu.py', 'submission.jsonl:2', 1, 'code2');
      INSERT INTO evaluations VALUES ('s1', 'incorrect', 'value_mismatch', 'differs', 1, 0, 1, 0, '', 'cpu',
        'kbx', 1.0, 2.0, 3.0, 0.5, 0.0, 7.0, 'printed');
      INSERT INTO cases VALUES ('s1', 0, 'small', 'mismatch', 'value_mismatch', 'out: differs', 'out',
        0.5, 0.25, 3, 0, 1.5);
    """)
    db.commit()
    sys.exit(0)
sys.exit(2)
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    exe = tmp_path / "kbx"
    exe.write_text(FAKE.replace("PYTHON", sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("KBX_BINARY", str(exe))
    monkeypatch.setenv("FAKE_LOG", str(log))
    return lambda: [json.loads(line) for line in log.read_text().splitlines()]


def test_suite_returns_typed_tasks(fake):
    tasks = kbx.suite()
    assert tasks == [kbx.Task(key="Math/softmax.py", entry="softmax", category="Math", difficulty=4,
                              signature="softmax(input, dim)", dtypes=("float32",), cases=11,
                              workloads=8, version="abc")]
    assert fake()[0] == ["suite", "list", "--json"]


def test_evaluate_passes_options_and_returns_stages_and_diagnostics(fake, tmp_path):
    r = kbx.evaluate("Math/softmax.py", "def softmax(): pass", device="cpu", seed=3,
                     keep_dir=tmp_path / "kept")
    args = fake()[0]
    assert args[0] == "eval" and args[args.index("--device") + 1] == "cpu" and "--no-perf" in args
    assert args[args.index("--seed") + 1] == "3" and args[args.index("--python") + 1] == sys.executable
    assert (r.outcome, r.reason, r.ok, r.exe_ok, r.speedup, r.speedup_interval) == (
        "incorrect", "value_mismatch", False, False, None, None)
    assert r.stages == {"queue": 1.0, "load": 2.0, "cases": 3.0, "compare": 0.5, "perf": 0.0, "total": 7.0}
    assert r.diagnostics == (kbx.CaseDiagnostic(
        index=0, name="small", status="mismatch", reason="value_mismatch", detail="out: differs",
        output_path="out", err_abs_max=0.5, err_rel_max=0.25, mismatch_count=3,
        first_mismatch_index=0, time_ms=1.5),)
    assert r.log_tail == "printed" and r.run_dir == str(tmp_path / "kept" / "run")


def test_evaluate_raises_when_kbx_evaluated_nothing(fake):
    with pytest.raises(kbx.KbxError, match="unknown task 'Nope/x.py'"):
        kbx.evaluate("Nope/x.py", "x = 1")


def test_load_run_reads_results_json_then_db(fake, tmp_path):
    kbx.evaluate("Math/softmax.py", "code", keep_dir=tmp_path / "k")
    run_dir = tmp_path / "k" / "run"
    run = kbx.load_run(run_dir)
    assert [s["outcome"] for s in run] == ["incorrect"] and run.summary == {"total": 1}
    db = kbx.load_run(run_dir / "kbx.db")
    assert [(s["file"], s["outcome"], s["exe_ok"]) for s in db] == [
        ("Math/softmax.py", "incorrect", False), ("Math/relu.py", "pending", False)]
    assert db.summary == {}


def test_load_run_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(kbx.KbxError, match="no kbx-results.json or kbx.db"):
        kbx.load_run(tmp_path)
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(kbx.KbxError, match="not a kbx-results file"):
        kbx.load_run(tmp_path / "x.json")
    (tmp_path / "kbx.db").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(kbx.KbxError, match="not a kbx store"):
        kbx.load_run(tmp_path / "kbx.db")


def test_as_dataframe_says_to_install_pandas_or_builds_one():
    records = [{"file": "Math/softmax.py", "outcome": "ok"}]
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            kbx.as_dataframe(records)
        return
    assert list(kbx.as_dataframe(records)["outcome"]) == ["ok"]
