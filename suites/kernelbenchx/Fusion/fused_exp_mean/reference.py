"""Reference for Fusion/fused_exp_mean.py: mean of exp(input) over dim (all elements by default)."""

import torch


def fused_exp_mean(input, dim=None, keepdim=False, dtype=None, out=None):
    x = input if dtype is None else input.to(dtype)
    result = torch.mean(torch.exp(x), dim=dim, keepdim=keepdim)
    if out is not None:
        return out.copy_(result)
    return result
