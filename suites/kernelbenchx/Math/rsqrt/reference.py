"""Reference for Math/rsqrt.py: elementwise 1 / sqrt(x)."""

import torch


def rsqrt(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.rsqrt(input, out=out)
