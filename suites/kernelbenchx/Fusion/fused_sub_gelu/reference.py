"""Reference for Fusion/fused_sub_gelu.py: GELU (erf or tanh form) of input - alpha * other."""

import math

import torch
import torch.nn.functional as F


def fused_sub_gelu(input, other, alpha=1, approximate='none', out=None):
    # Unfused eager ops: a scaled subtraction, then PyTorch's GELU in the requested form.
    r = torch.sub(input, other, alpha=alpha)
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    result = F.gelu(r, approximate=approximate)
    if out is not None:
        return out.copy_(result)
    return result


def upstream_reference(input, other, alpha=1, approximate='none', out=None):
    """What KernelBench-X's reference computes: its non-tanh branch is r * erf(r / sqrt(2)) / 2, missing the '1 +'."""
    r = input - alpha * other
    if approximate == 'tanh':
        result = 0.5 * r * (1 + torch.tanh(math.sqrt(2 / math.pi) * (r + 0.044715 * r ** 3)))
    else:
        result = r * torch.erf(r / math.sqrt(2.0)) / 2.0
    if out is not None:
        out.copy_(result)
        return out
    return result
