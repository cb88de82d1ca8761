"""Reference for Math/polygamma.py: n-th derivative of the digamma function."""

import torch


def polygamma(n, input, *, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.polygamma(n, input, out=out)
