"""Reference for Math/bessel_j1.py: elementwise Bessel function J1(x)."""

import torch


def bessel_j1(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.bessel_j1(input, out=out)
