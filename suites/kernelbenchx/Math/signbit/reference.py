"""Reference for Math/signbit.py: elementwise sign-bit test (True for -0.0 too)."""

import torch


def signbit(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.signbit(input, out=out)


def signed_specials(gen, device):
    """[-0.0, +0.0, -inf, +inf, -1e-40 (subnormal), 1e-40, -2.5, 3.0]: sign bits that a comparison x < 0 misses."""
    vals = [-0.0, 0.0, float("-inf"), float("inf"), -1e-40, 1e-40, -2.5, 3.0]
    return torch.tensor(vals, dtype=torch.float32, device=device)
