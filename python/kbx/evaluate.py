"""kbx.evaluate: one submission judged by the kbx binary in a temporary run folder."""

import json
import sqlite3
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kbx import _binary

# evaluations' time columns, in pipeline order: the stages of one evaluation (docs/store-schema.md).
_stages = ("queue", "load", "cases", "compare", "perf", "total")


@dataclass(frozen=True)
class CaseDiagnostic:
    """One correctness test case as kbx judged it (the store's `cases` table)."""

    index: int
    name: str
    status: str                  # ok, mismatch, error, not_run
    reason: str                  # a FailReason name or an error kind; "" when ok
    detail: str
    output_path: str             # the output leaf that failed, "out[0]"
    err_abs_max: float = None
    err_rel_max: float = None
    mismatch_count: int = None
    first_mismatch_index: int = None
    time_ms: float = None


@dataclass(frozen=True)
class EvalResult:
    """The verdict on one submission. Failures of the code are values here, never exceptions."""

    task: str
    outcome: str                 # ok, incorrect, not_triton, compile_error, runtime_error, timeout, ...
    reason: str                  # short code: mismatch, syntax_error, SIGSEGV; "" when ok
    detail: str                  # one paragraph a user can act on
    call_ok: bool
    exe_ok: bool
    triton_ok: bool
    perf_ok: bool
    perf_note: str               # why perf is missing; "" when perf_ok
    speedup: float = None        # Σ reference medians / Σ candidate medians; None without perf
    speedup_interval: tuple = None   # 95% bootstrap interval (low, high); None without one
    speedup_verdict: str = "none"    # faster, same, slower, ambiguous, none
    runtime_ms: float = None
    ref_runtime_ms: float = None
    stages: dict = field(default_factory=dict)       # stage -> wall ms: queue, load, cases, compare, perf, total
    diagnostics: tuple = field(default=(), repr=False)   # CaseDiagnostic per test case
    log_tail: str = ""           # the last lines the candidate printed
    record: dict = field(default_factory=dict, repr=False)  # the full kbx-results.json record
    run_dir: str = None          # the kept run folder (keep_dir=...), else None

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def evaluate(task: str, code: str, device: str = "cpu", perf: bool = False, *, python: str = None,
             suite_root=None, seed: int = 0, rules: str = "kbx", require_triton: bool = True,
             timeout_s: int = None, cache_dir=None, keep_dir=None, extra_args=()) -> EvalResult:
    """Judges `code` as a submission for `task` ("Math/softmax.py") and returns its EvalResult.

    device: "cpu" (Triton's interpreter, never timed), "cuda" or "auto". perf: time it (GPU only).
    python: the worker's interpreter (default: this one). keep_dir: a folder to run in and keep
    (kbx.db, kbx-results.json, ...) instead of a temporary one. Raises KbxError when kbx itself
    fails (no such task, no binary, a bad option); an outcome such as `incorrect` is a value.
    """
    if keep_dir is not None:
        return _evaluate_in(Path(keep_dir), locals())
    with tempfile.TemporaryDirectory(prefix="kbx-eval-") as tmp:
        return _evaluate_in(Path(tmp), locals())


def _evaluate_in(folder: Path, a: dict) -> EvalResult:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "submission.jsonl"
    source.write_text(json.dumps({"file": a["task"], "predict": a["code"]}) + "\n", encoding="utf-8")
    out = folder / "run"
    proc = _binary.run(_eval_args(source, out, a), check=False)
    if not (out / "kbx-results.json").is_file():
        raise _binary.KbxError(f"kbx eval wrote no kbx-results.json: {proc.stderr[-2000:]}")
    results = json.loads((out / "kbx-results.json").read_text(encoding="utf-8"))
    if not results["submissions"]:
        errors = [e.get("message", e) if isinstance(e, dict) else e
                  for e in results["summary"].get("input_errors", [])]
        raise _binary.KbxError(f"kbx did not evaluate the submission: {errors or proc.stderr[-2000:]}")
    record = results["submissions"][0]
    row, cases = _stored(out / "kbx.db", record["submission_id"])
    return _result(record, row, cases, str(out) if a["keep_dir"] is not None else None)


def _eval_args(source: Path, out: Path, a: dict) -> list:
    args = ["eval", str(source), "-o", str(out), "--device", a["device"], "--jobs", "1",
            "--python", a["python"] or sys.executable, "--seed", str(a["seed"]), "--rules", a["rules"]]
    if not a["perf"]:
        args.append("--no-perf")
    if not a["require_triton"]:
        args.append("--no-require-triton")
    if a["suite_root"]:
        args += ["--suite", str(a["suite_root"])]
    if a["timeout_s"]:
        args += ["--timeout", str(a["timeout_s"])]
    if a["cache_dir"]:
        args += ["--cache-dir", str(a["cache_dir"])]
    return args + list(a["extra_args"])


def _stored(db: Path, submission_id: str):
    """The evaluation's stage times and log tail, and its cases, from kbx.db."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        row = con.execute("SELECT * FROM evaluations WHERE submission_id = ?", (submission_id,)).fetchone()
        cases = con.execute("SELECT * FROM cases WHERE submission_id = ? ORDER BY case_index",
                            (submission_id,)).fetchall()
        return (dict(row) if row else {}), [dict(c) for c in cases]
    finally:
        con.close()


def _result(record: dict, row: dict, cases: list, run_dir) -> EvalResult:
    timed = bool(record.get("perf_ok"))
    low, high = record.get("speedup_ci_low"), record.get("speedup_ci_high")
    return EvalResult(
        task=record["file"], outcome=record["outcome"], reason=record["reason"],
        detail=record["detail"], call_ok=bool(record["call_ok"]), exe_ok=bool(record["exe_ok"]),
        triton_ok=bool(record["triton_ok"]), perf_ok=timed, perf_note=record.get("perf_note", ""),
        speedup=record["speedup"] if timed else None,
        speedup_interval=(low, high) if low is not None and high is not None else None,
        speedup_verdict=record.get("speedup_verdict", "none"),
        runtime_ms=record["runtime_ms"] if timed else None,
        ref_runtime_ms=record["ref_runtime_ms"] if timed else None,
        stages={s: row[f"time_{s}_ms"] for s in _stages if row.get(f"time_{s}_ms") is not None},
        diagnostics=tuple(_case(c) for c in cases), log_tail=row.get("log_tail") or "",
        record=record, run_dir=run_dir)


def _case(c: dict) -> CaseDiagnostic:
    return CaseDiagnostic(
        index=c["case_index"], name=c["name"], status=c["status"], reason=c["reason"] or "",
        detail=c["detail"] or "", output_path=c["output_path"] or "", err_abs_max=c["err_abs_max"],
        err_rel_max=c["err_rel_max"], mismatch_count=c["mismatch_count"],
        first_mismatch_index=c["first_mismatch_index"], time_ms=c["time_ms"])
