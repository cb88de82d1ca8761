"""Checks worker request messages (load, run_cases, time); a malformed one is a protocol_error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import WorkerError

_MISSING = object()


@dataclass
class LoadRequest:
    source_code: str | None
    path: str | None
    filename: str
    entry_names: list[str]
    builders_path: str | None
    builders_code: str | None = None  # reference.py's text, so a sandboxed worker needs no read access


@dataclass
class RunRequest:
    handle: int
    device: str
    items: list[dict]  # cases or workloads, normalised


def parse_load(header: dict) -> LoadRequest:
    code = _get(header, "code", str, None)
    path = _get(header, "path", str, None)
    if (code is None) == (path is None):
        raise _bad("load needs exactly one of 'code' and 'path'")
    filename = _get(header, "filename", str, None) or path or "submission.py"
    entry_names = _get(header, "entry_names", list)
    if not entry_names or not all(isinstance(n, str) and n for n in entry_names):
        raise _bad("'entry_names' must be a non-empty list of names")
    return LoadRequest(code, path, filename, entry_names, _get(header, "builders_path", str, None),
                       _get(header, "builders_code", str, None))


def parse_run_cases(header: dict) -> RunRequest:
    cases = [_case(c, i) for i, c in enumerate(_get(header, "cases", list))]
    return RunRequest(_int(header, "handle"), _device(header), cases)


def parse_time(header: dict) -> RunRequest:
    workloads = [_workload(w, i) for i, w in enumerate(_get(header, "workloads", list))]
    return RunRequest(_int(header, "handle"), _device(header), workloads)


def _case(raw: Any, position: int) -> dict:
    case = _workload(raw, position, what="case")
    mutated = _get(raw, "mutated_args", list, [], where=f"case {position}")
    if not all(_is_int(i) and i >= 0 for i in mutated):
        raise _bad(f"case {position}: 'mutated_args' must list argument positions")
    case["mutated_args"] = mutated
    case["exact"] = _get(raw, "exact", bool, False, where=f"case {position}")
    case["mutated_kwargs"] = _names(raw, "mutated_kwargs", position)
    case["raises"] = _names(raw, "raises", position)
    case["canonical"] = _get(raw, "canonical", str, None, where=f"case {position}")
    case["bound"] = _get(raw, "bound", bool, False, where=f"case {position}")
    case["draw_on_device"] = _get(raw, "draw_on_device", bool, False, where=f"case {position}")
    return case


def parse_canonicalize(header: dict) -> RunRequest:
    """A canonicalize request: cases (as in run_cases) each with the candidate's output leaves."""
    cases = []
    for i, raw in enumerate(_get(header, "cases", list)):
        case = _case(raw, i)
        if case["canonical"] is None:
            raise _bad(f"case {i}: canonicalize needs 'canonical'")
        case["outputs"] = _get(raw, "outputs", list, where=f"case {i}")
        cases.append(case)
    return RunRequest(_int(header, "handle"), _device(header), cases)


def _names(raw: dict, field: str, position: int) -> list[str]:
    names = _get(raw, field, list, [], where=f"case {position}")
    if not all(isinstance(n, str) and n for n in names):
        raise _bad(f"case {position}: {field!r} must list names")
    return names


def _workload(raw: Any, position: int, what: str = "workload") -> dict:
    where = f"{what} {position}"
    if not isinstance(raw, dict):
        raise _bad(f"{where} is not an object")
    then = _get(raw, "then", str, None, where)
    if then is not None and (not then.isidentifier() or then.startswith("_")):
        raise _bad(f"{where}: 'then' must name a public method, got {then!r}")
    then_calls = _get(raw, "then_calls", int, 1, where)
    if not 1 <= then_calls <= 100 or (then_calls != 1 and then is None):
        raise _bad(f"{where}: 'then_calls' must be 1 to 100, with 'then', got {then_calls!r}")
    return {
        "index": _int(raw, "index", where),
        "seed": _int(raw, "seed", where),
        "args": _get(raw, "args", list, [], where),
        "kwargs": _get(raw, "kwargs", dict, {}, where),
        "then": then,
        "then_calls": then_calls,
    }


def _device(header: dict) -> str:
    device = _get(header, "device", str)
    if device not in ("cuda", "cpu"):
        raise _bad(f"device must be 'cuda' or 'cpu', got {device!r}")
    return device


def _int(obj: dict, name: str, where: str = "request") -> int:
    value = _get(obj, name, int, where=where)
    if isinstance(value, bool):
        raise _bad(f"{where}: {name!r} must be an integer")
    return value


def _get(obj: dict, name: str, kind: type, default: Any = _MISSING, where: str = "request") -> Any:
    value = obj.get(name, _MISSING)
    if value is _MISSING or (value is None and default is not _MISSING):
        if default is _MISSING:
            raise _bad(f"{where} has no {name!r}")
        return default
    if not isinstance(value, kind):
        raise _bad(f"{where}: {name!r} must be a {_json_type(kind)}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_type(kind: type) -> str:
    return {str: "string", int: "integer", list: "list", dict: "object"}.get(kind, kind.__name__)


def _bad(message: str) -> WorkerError:
    return WorkerError("protocol_error", message)
