"""kbx.load_run: a run folder's results as plain records (dicts), and as a pandas DataFrame."""

import json
import sqlite3
from pathlib import Path

from kbx._binary import KbxError

# What a record holds when it is read from kbx.db alone (no kbx-results.json): the stored verdict.
# Speedups, intervals and code quality are derived at export time and need kbx-results.json.
_db_query = """
SELECT s.task_key AS file, s.submission_id, s.origin, e.outcome, e.reason, e.detail,
       e.call_ok, e.exe_ok, e.triton_ok, e.perf_ok, e.perf_note, e.device, e.rules,
       e.time_load_ms, e.time_cases_ms, e.time_compare_ms, e.time_perf_ms, e.time_total_ms,
       s.code
FROM submissions s LEFT JOIN evaluations e USING (submission_id)
ORDER BY s.ordinal, s.rowid
"""
_flags = ("call_ok", "exe_ok", "triton_ok", "perf_ok")


class Run(list):
    """The submissions of a run, one dict per submission (kbx-results.json's `submissions`, in
    source order), with the run's `summary` (empty when read from kbx.db) and `source` path."""

    def __init__(self, records, summary: dict, source: Path):
        super().__init__(records)
        self.summary = summary
        self.source = source

    def to_pandas(self):
        """The records as a pandas DataFrame (one row per submission); needs pandas."""
        return as_dataframe(self)


def load_run(path) -> Run:
    """Reads a run: a folder `kbx eval -o` wrote (its kbx-results.json, else its kbx.db), or one
    of those two files. Raises KbxError when there is neither."""
    path = Path(path)
    if path.is_dir():
        for name in ("kbx-results.json", "kbx.db"):
            if (path / name).is_file():
                return load_run(path / name)
        raise KbxError(f"{path}: no kbx-results.json or kbx.db (is it a folder kbx eval -o wrote?)")
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not str(data.get("format", "")).startswith("kbx-results/"):
            raise KbxError(f"{path}: not a kbx-results file (format {data.get('format')!r})")
        return Run(data["submissions"], data.get("summary", {}), path)
    if path.is_file():
        return Run(_from_db(path), {}, path)
    raise KbxError(f"{path}: no such run folder or file")


def _from_db(db: Path) -> list:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        rows = [dict(r) for r in con.execute(_db_query)]
    except sqlite3.DatabaseError as e:
        raise KbxError(f"{db}: not a kbx store ({e})") from None
    finally:
        con.close()
    for r in rows:
        r["outcome"] = r["outcome"] or "pending"
        for f in _flags:
            r[f] = bool(r[f])
    return rows


def as_dataframe(records):
    """Records (a Run, or any list of dicts) as a pandas DataFrame; needs pandas."""
    try:
        import pandas
    except ImportError:
        raise ImportError("kbx: as_dataframe/to_pandas need pandas (pip install pandas); "
                          "the records themselves are plain dicts") from None
    return pandas.DataFrame.from_records(list(records))
