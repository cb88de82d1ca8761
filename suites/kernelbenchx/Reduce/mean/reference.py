"""Reference for Reduce/mean.py: mean over one or more dimensions, optionally in another dtype."""

import torch


def mean(input_tensor, dim, keepdim=False, dtype=None, out=None):
    if out is not None:
        return torch.mean(input_tensor, dim, keepdim=keepdim, dtype=dtype, out=out)
    return torch.mean(input_tensor, dim, keepdim=keepdim, dtype=dtype)
