"""Reference for Math/mul.py: elementwise product with broadcasting and type promotion."""

import torch


def mul(input, other, out=None):  # noqa: A002 - upstream's parameter name
    return torch.mul(input, other, out=out)
