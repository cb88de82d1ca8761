"""Canonical forms of individual tasks (suites/kernelbenchx/*/reference.py) on outputs a correct
kernel may give: rounding that a GPU's arithmetic brings must never fail them."""

from __future__ import annotations

import importlib.util
import pathlib

import torch

SUITE = pathlib.Path(__file__).resolve().parents[2] / "suites" / "kernelbenchx"


def _reference(key: str):
    path = SUITE / key / "reference.py"
    spec = importlib.util.spec_from_file_location(key.replace("/", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _within(a: torch.Tensor, b: torch.Tensor, rtol: float = 1e-5, atol: float = 1e-5) -> bool:
    return bool(((a.double() - b.double()).abs() <= atol + rtol * b.double().abs()).all())


def _ulps_up(x: torch.Tensor, n: int) -> torch.Tensor:
    for _ in range(n):
        x = torch.nextafter(x, torch.full_like(x, float("inf")))
    return x


def test_hardshrink_dropout_kept_values_get_a_relative_tolerance():
    # Survivors scaled by 10 reach |40| and more, where two ulps are over 1e-5: an H100's
    # approximate x / (1 - p) failed an absolute difference against 0 there.
    ref = _reference("Fusion/fused_hardshrink_dropout")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4096, generator=g) * 4
    p, lambd = 0.9, 1.0
    kept = torch.nn.functional.hardshrink(x * (1.0 / (1.0 - p)), lambd)
    drop = torch.rand(4096, generator=g) < p
    reference_out = torch.where(drop, torch.zeros_like(kept), kept)
    candidate_out = torch.where(torch.rand(4096, generator=g) < p, torch.zeros_like(kept),
                                _ulps_up(kept, 3))
    want, ok_ref = ref.canonical_dropout(reference_out, (x,), {"p": p, "lambd": lambd})
    got, ok = ref.canonical_dropout(candidate_out, (x,), {"p": p, "lambd": lambd})
    assert bool(ok_ref) and bool(ok)
    assert _within(got, want)
    # A kernel that forgets the 1 / (1 - p) scaling still fails.
    unscaled = torch.where(candidate_out != 0, torch.nn.functional.hardshrink(x, lambd), 0.0)
    wrong, _ = ref.canonical_dropout(unscaled, (x,), {"p": p, "lambd": lambd})
    assert not _within(wrong, want)


def test_hardshrink_dropout_values_at_lambd_may_go_either_way():
    ref = _reference("Fusion/fused_hardshrink_dropout")
    p, lambd = 0.5, 1.0
    x = torch.full((64,), 0.5)  # scaled by 2: exactly lambd, shrunk to 0 by the reference
    x[1::2] = -0.5
    out = _ulps_up(x * 2.0, 1)  # a kernel whose rounding put them a hair past lambd: kept
    got, _ = ref.canonical_dropout(out, (x,), {"p": p, "lambd": lambd})
    want, _ = ref.canonical_dropout(torch.zeros(64), (x,), {"p": p, "lambd": lambd})
    assert _within(got, want)


def test_hardshrink_dropout_rejects_a_result_of_another_shape():
    # A zero of shape [1] broadcast into the filled form would read as the kept values (kbx's
    # structure check rejects it before any canonical form; the form must not rely on that).
    ref = _reference("Fusion/fused_hardshrink_dropout")
    x = torch.randn(100)
    for out in (torch.zeros(1), torch.zeros(100, dtype=torch.float64), [0.0] * 100):
        try:
            ref.canonical_dropout(out, (x,), {"p": 0.9, "lambd": 1.0})
        except ValueError:
            continue
        raise AssertionError(f"accepted {type(out).__name__}")
