"""Reference for Math/log1p.py: elementwise ln(1 + x)."""

import torch


def log1p(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.log1p(input, out=out)
