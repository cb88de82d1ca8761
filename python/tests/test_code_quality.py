"""The code-quality step: radon's figures for parseable code, a reason for the rest."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kbx_worker import code_quality

radon = pytest.importorskip("radon")

BRANCHY = """
def f(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def g(y):
    return y + 1
"""


def test_figures_are_radons_average_complexity_and_multi_line_maintainability_index():
    from radon.complexity import average_complexity, cc_visit
    from radon.metrics import mi_visit

    got = code_quality.measure_all({"a": BRANCHY})
    assert got["radon"] == radon.__version__
    assert got["note"] == ""
    result = got["results"]["a"]
    assert result["code_quality"] == round(average_complexity(cc_visit(BRANCHY)), 2) == 2.0
    assert result["maintainability"] == round(mi_visit(BRANCHY, multi=True), 2)
    assert result["error"] == ""


def test_code_without_functions_has_complexity_zero():
    result = code_quality.measure_all({"a": "x = 1\n"})["results"]["a"]
    assert result["code_quality"] == 0
    assert result["maintainability"] == 100.0


def test_code_that_does_not_parse_gets_no_figures_and_a_reason():
    result = code_quality.measure_all({"bad": "def f(:\n"})["results"]["bad"]
    assert result["code_quality"] is None and result["maintainability"] is None
    assert "SyntaxError" in result["error"]


def test_the_code_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('x')\n"
    code_quality.measure_all({"a": code})
    assert not marker.exists()


def test_command_line_reads_and_writes_json_files(tmp_path):
    src = tmp_path / "in.json"
    out = tmp_path / "out.json"
    src.write_text(json.dumps({"sources": {"s1": BRANCHY, "s2": "def f(:"}}))
    subprocess.run([sys.executable, "-m", "kbx_worker.code_quality", str(src), str(out)], check=True)
    got = json.loads(out.read_text())
    assert set(got["results"]) == {"s1", "s2"}
    assert got["results"]["s1"]["code_quality"] == 2.0


def test_without_radon_there_are_no_figures_and_a_note_says_how_to_get_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "radon", None)  # import radon raises ImportError
    got = code_quality.measure_all({"a": BRANCHY})
    assert got["radon"] is None and got["results"] == {}
    assert "radon is not installed" in got["note"]


def test_code_nested_too_deep_for_radon_gets_a_reason_and_the_others_their_figures():
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    got = code_quality.measure_all({"deep": deep, "fine": BRANCHY})["results"]
    assert got["deep"]["code_quality"] is None and got["deep"]["error"]
    assert got["fine"]["code_quality"] == 2.0
