"""Reference for Fusion/fused_add_gelu.py: GELU (erf or tanh form) of input + alpha * other."""

import math

import torch
import torch.nn.functional as F


def fused_add_gelu(input, other, alpha=1, approximate='none', out=None):
    # Unfused eager ops, as in KernelBench-X: a scaled add, then the GELU.
    r = input + alpha * other
    if approximate == 'none':
        result = F.gelu(r)
    elif approximate == 'tanh':
        k = torch.sqrt(torch.tensor(2.0 / math.pi, dtype=torch.float32, device=r.device))
        result = 0.5 * r * (1.0 + torch.tanh(k * (r + 0.044715 * r ** 3)))
    else:
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if out is not None:
        return out.copy_(result)
    return result
