"""Reference for Math/i0.py: elementwise modified Bessel function I0(x)."""

import torch


def i0(input_tensor, out=None):
    return torch.special.i0(input_tensor, out=out)
