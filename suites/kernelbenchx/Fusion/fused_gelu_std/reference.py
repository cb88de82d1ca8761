"""Reference for Fusion/fused_gelu_std.py: GELU, then the standard deviation."""

import torch
import torch.nn.functional as F


def fused_gelu_std(input, dim=None, keepdim=False, correction=1, approximate='none', out=None):
    # PyTorch's GELU kernel, then its fused (Welford) std reduction.
    g = F.gelu(input, approximate=approximate)
    result = torch.std(g, dim=dim, correction=correction, keepdim=keepdim)
    if out is not None:
        return out.copy_(result)
    return result
