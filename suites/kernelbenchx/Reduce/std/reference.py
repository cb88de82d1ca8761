"""Reference for Reduce/std.py: standard deviation with a Bessel-style correction."""

import torch


def std(input, dim=None, correction=1, keepdim=False, out=None):
    if out is not None:
        return torch.std(input, dim=dim, correction=correction, keepdim=keepdim, out=out)
    return torch.std(input, dim=dim, correction=correction, keepdim=keepdim)
