"""Flattening: leaf order and paths, scalar kinds, non-finite values, and tensor bytes."""

from __future__ import annotations

import collections

import pytest
import torch

from kbx_worker.errors import WorkerError
from kbx_worker.outputs import Payload, flatten_call


def flatten(value, args=(), mutated=()):
    payload = Payload()
    leaves = flatten_call(value, list(args), list(mutated), payload)
    return leaves, b"".join(bytes(v) for v in payload.views)


def test_nested_outputs_flatten_depth_first_with_sorted_dict_keys():
    Pair = collections.namedtuple("Pair", "a b")
    value = (1, [None, "s"], {"z": 2.5, "a": Pair(True, 3 + 4j)})
    leaves, _ = flatten(value)
    assert [(leaf["path"], leaf["kind"]) for leaf in leaves] == [
        ("out[0]", "scalar"), ("out[1][0]", "none"), ("out[1][1]", "str"),
        ("out[2]['a'][0]", "scalar"), ("out[2]['a'][1]", "scalar"), ("out[2]['z']", "scalar")]
    assert leaves[0] == {"path": "out[0]", "kind": "scalar", "dtype": "int64", "value": 1}
    assert leaves[3]["dtype"] == "bool" and leaves[3]["value"] is True
    assert leaves[4] == {"path": "out[2]['a'][1]", "kind": "scalar", "dtype": "complex128",
                         "value": [3.0, 4.0]}
    assert leaves[5]["dtype"] == "float64" and leaves[5]["value"] == 2.5


@pytest.mark.parametrize("value, expected", [
    (float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_non_finite_floats_become_strings(value, expected):
    leaves, _ = flatten(value)
    assert leaves == [{"path": "out", "kind": "scalar", "dtype": "float64", "value": expected}]


def test_non_finite_complex_parts_become_strings():
    leaves, _ = flatten(complex(float("nan"), float("-inf")))
    assert leaves[0]["value"] == ["nan", "-inf"]


def test_other_values_are_reprs():
    leaves, _ = flatten([torch.float32, 1 << 70])
    assert leaves == [{"path": "out[0]", "kind": "repr", "value": "torch.float32"},
                      {"path": "out[1]", "kind": "repr", "value": str(1 << 70)}]


def test_a_self_containing_list_does_not_recurse_forever():
    loop: list = [1]
    loop.append(loop)
    leaves, _ = flatten(loop)
    assert [leaf["kind"] for leaf in leaves] == ["scalar", "repr"]


def test_tensor_leaves_point_into_the_payload():
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    b = torch.tensor([True, False, True])
    leaves, payload = flatten((a, b))
    ta, tb = leaves[0]["tensor"], leaves[1]["tensor"]
    assert ta == {"dtype": "float32", "shape": [2, 3], "device": "cpu", "offset": 0, "nbytes": 24}
    assert tb == {"dtype": "bool", "shape": [3], "device": "cpu", "offset": 24, "nbytes": 3}
    assert payload[:24] == a.numpy().tobytes()
    assert payload[24:] == b"\x01\x00\x01"


def test_non_contiguous_and_conjugate_views_are_sent_as_dense_values():
    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    z = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64).conj()
    leaves, payload = flatten((base.t(), z))
    assert leaves[0]["tensor"]["shape"] == [4, 3]
    assert payload[:96] == base.t().contiguous().numpy().tobytes()
    assert payload[96:] == torch.tensor([1 - 2j, 3 + 4j], dtype=torch.complex64).numpy().tobytes()


def test_half_precision_tensors_keep_their_bit_patterns():
    t = torch.tensor([1.0, -2.5], dtype=torch.bfloat16)
    leaves, payload = flatten(t)
    assert leaves[0]["tensor"]["dtype"] == "bfloat16"
    assert payload == t.view(torch.int16).numpy().tobytes()


def test_zero_dim_and_empty_tensors():
    leaves, payload = flatten((torch.tensor(7, dtype=torch.int32), torch.empty(0, 5)))
    assert leaves[0]["tensor"]["shape"] == [] and leaves[0]["tensor"]["nbytes"] == 4
    assert leaves[1]["tensor"] == {"dtype": "float32", "shape": [0, 5], "device": "cpu",
                                   "offset": 4, "nbytes": 0}
    assert payload == (7).to_bytes(4, "little")


def test_tensors_that_require_grad_are_detached_and_say_so():
    t = torch.ones(2, requires_grad=True) * 2
    leaves, payload = flatten((t, t.detach()))
    assert payload == torch.full((2,), 2.0).numpy().tobytes() * 2
    assert leaves[0]["tensor"]["requires_grad"] is True
    assert "requires_grad" not in leaves[1]["tensor"]  # left out unless set


def test_mutated_arguments_follow_the_return_value():
    x, y = torch.zeros(2), torch.ones(3)
    leaves, _ = flatten(None, args=[x, 5, y], mutated=[2, 0])
    assert [leaf["path"] for leaf in leaves] == ["out", "arg2", "arg0"]
    assert leaves[1]["tensor"]["shape"] == [3]


def test_rewind_drops_what_was_added_after_the_mark():
    payload = Payload()
    payload.add_tensor(torch.ones(2))
    mark = payload.mark()
    payload.add_tensor(torch.ones(3))
    payload.rewind(mark)
    assert payload.size == 8 and len(payload.views) == 1


def test_views_stay_valid_after_the_payload_and_tensors_are_dropped():
    import gc

    payload = Payload()
    payload.add_tensor(torch.arange(4, dtype=torch.float32) + 1)
    views = payload.views
    del payload
    gc.collect()
    torch.zeros(1 << 16).add_(7)  # reuse freed memory, if any was freed
    assert bytes(views[0]) == torch.tensor([1.0, 2.0, 3.0, 4.0]).numpy().tobytes()


def test_tensors_of_dtypes_kbx_cannot_decode_are_errors_not_text():
    with pytest.raises(WorkerError) as e:
        flatten(torch.zeros(2, 3, dtype=torch.uint32))
    assert e.value.kind == "unsupported_output" and "torch.uint32" in str(e.value)
