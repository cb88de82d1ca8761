"""Worker support for task contracts: expected errors, canonical forms, magnitudes, mutated keyword
arguments, non-contiguous inputs and rebuilding a candidate's output from its leaves."""

from __future__ import annotations

import textwrap

import pytest
import torch

from kbx_worker import executor, outputs
from kbx_worker.values import InputError, ValueBuilder

REFERENCE = textwrap.dedent('''
    import torch

    def solve(a, b, out=None):
        if a.shape[-1] != a.shape[-2]:
            raise ValueError("a must be square")
        x = a.sum() * b
        if out is not None:
            out.copy_(x)
        return x

    def canonical_pair(out, args, kwargs):
        return (out.abs(), torch.tensor(bool((out.abs() >= 0).all())))
''')


def tensor(shape, **extra):
    return {"tensor": {"shape": shape, "dtype": "float32", "init": "randn", **extra}}


def case(index, args, kwargs=None, **fields):
    base = {"index": index, "seed": 7 + index, "args": args, "kwargs": kwargs or {},
            "mutated_args": [], "mutated_kwargs": [], "raises": [], "canonical": None,
            "bound": False, "exact": False}
    base.update(fields)
    return base


def loaded():
    module = executor.load_source(REFERENCE, "LinearAlgebra/solve.py", "kbx_test_contract")
    name, entry = executor.find_entry(module, ["solve"])
    return executor.Loaded(module, name, entry, module)


def payload_bytes(payload):
    return b"".join(bytes(v) for v in payload.views)


def test_a_case_that_must_raise_reports_its_types_and_later_cases_still_run(launches):
    cases = [case(0, [tensor([2, 3]), tensor([3])], raises=["ValueError"]),
             case(1, [tensor([3, 3]), tensor([3])])]
    run = executor.run_cases(loaded(), "cpu", cases, launches)
    assert run.results[0]["status"] == "error"
    assert run.results[0]["error"]["types"][:2] == ["ValueError", "Exception"]
    assert run.results[1]["status"] == "ok"


def test_an_unexpected_error_still_stops_the_run(launches):
    cases = [case(0, [tensor([2, 3]), tensor([3])]), case(1, [tensor([3, 3]), tensor([3])])]
    run = executor.run_cases(loaded(), "cpu", cases, launches)
    assert [r["status"] for r in run.results] == ["error", "not_run"]


def test_reference_results_carry_canonical_forms_and_magnitudes(launches):
    c = case(0, [tensor([3, 3]), tensor([3])], canonical="canonical_pair", bound=True)
    run = executor.run_cases(loaded(), "cpu", [c], launches)
    r = run.results[0]
    assert [leaf["path"] for leaf in r["canonical"]] == ["out[0]", "out[1]"]
    assert r["magnitude"][0]["tensor"]["dtype"] == "float64"
    args, _ = ValueBuilder(7, "cpu").build_call(c["args"], {})
    raw = payload_bytes(run.payload)
    m = r["magnitude"][0]["tensor"]
    magnitude = torch.frombuffer(bytearray(raw[m["offset"]:m["offset"] + m["nbytes"]]), dtype=torch.float64)
    torch.testing.assert_close(magnitude, args[0].double().abs().sum() * args[1].double().abs())


def test_mutated_keyword_arguments_are_leaves_and_absent_ones_are_none(launches):
    with_out = case(0, [tensor([2, 2]), tensor([2])], {"out": {"tensor": {"shape": [2], "init": "zeros"}}},
                    mutated_kwargs=["out"])
    without = case(1, [tensor([2, 2]), tensor([2])], mutated_kwargs=["out"])
    run = executor.run_cases(loaded(), "cpu", [with_out, without], launches)
    assert [leaf["path"] for leaf in run.results[0]["outputs"]] == ["out", "kw['out']"]
    assert run.results[0]["outputs"][1]["kind"] == "tensor"
    assert run.results[1]["outputs"][1] == {"path": "kw['out']", "kind": "none"}


def test_canonicalize_rebuilds_a_candidates_output_and_rejects_malformed_leaves():
    payload = outputs.Payload()
    value = (torch.tensor([-1.0, 2.0]), {"k": torch.tensor([3])}, None, 1.5)
    leaves = outputs.flatten_call(value, [], [], payload)
    rebuilt = outputs.unflatten(leaves, payload_bytes(payload), "cpu")
    assert isinstance(rebuilt, tuple) and len(rebuilt) == 4
    torch.testing.assert_close(rebuilt[0], value[0])
    torch.testing.assert_close(rebuilt[1]["k"], value[1]["k"])
    assert rebuilt[2] is None and rebuilt[3] == 1.5
    bad = [dict(leaves[0], tensor=dict(leaves[0]["tensor"], nbytes=999))]
    with pytest.raises(ValueError):
        outputs.unflatten(bad, payload_bytes(payload), "cpu")


def test_canonicalize_runs_the_canonical_function_and_fails_only_the_bad_case():
    payload = outputs.Payload()
    good = outputs.flatten_call(torch.tensor([-1.0, 2.0, 3.0]), [], [], payload)
    raw = payload_bytes(payload)
    c = case(0, [tensor([3, 3]), tensor([3])], canonical="canonical_pair")
    run = executor.canonicalize(loaded(), "cpu", [dict(c, outputs=good),
                                                  dict(c, index=1, outputs=[{"path": "out", "kind": "?"}])], raw)
    assert run.results[0]["status"] == "ok"
    assert [leaf["path"] for leaf in run.results[0]["canonical"]] == ["out[0]", "out[1]"]
    assert run.results[1]["status"] == "error"


def test_noncontig_inputs_hold_the_same_values_as_the_contiguous_draw():
    plain, _ = ValueBuilder(3, "cpu").build_call([tensor([4, 5])], {})
    strided, _ = ValueBuilder(3, "cpu").build_call([tensor([4, 5], noncontig=True)], {})
    assert not strided[0].is_contiguous()
    torch.testing.assert_close(strided[0], plain[0], rtol=0, atol=0)
    with pytest.raises(InputError):
        ValueBuilder(3, "cpu").build_call([tensor([], noncontig=True)], {})


def test_float_values_json_cannot_write():
    args, _ = ValueBuilder(0, "cpu").build_call([{"float": "inf"}, {"float": "-inf"}], {})
    assert args == [float("inf"), float("-inf")]
    with pytest.raises(InputError):
        ValueBuilder(0, "cpu").build_call([{"float": "1e400"}], {})


def test_only_a_reference_worker_canonicalizes():
    from kbx_worker.errors import WorkerError
    from kbx_worker.worker import Worker

    w = Worker.__new__(Worker)
    w._role = "candidate"
    with pytest.raises(WorkerError):
        w._canonicalize({"op": "canonicalize", "handle": 1, "device": "cpu", "cases": []})
