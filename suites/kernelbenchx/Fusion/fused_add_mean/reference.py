"""Reference for Fusion/fused_add_mean.py: mean of input + alpha * other over dim (all elements by default)."""

import torch


def fused_add_mean(input, other, dim=None, alpha=1, keepdim=False, dtype=None, out=None):
    # One eager add (with the alpha scaling fused in) followed by torch.mean.
    r = torch.add(input, other, alpha=alpha)
    result = torch.mean(r, dim=dim, keepdim=keepdim, dtype=dtype)
    if out is not None:
        return out.copy_(result)
    return result
