"""Reference for Fusion/fused_gelu_min.py: GELU, then the minimum (overall, or along a dimension)."""

import math

import torch
import torch.nn.functional as F


def fused_gelu_min(input, approximate='none', dim=None, keepdim=False, out=None):
    # PyTorch's GELU kernel (erf form or tanh approximation), then torch.min.
    g = F.gelu(input, approximate=approximate)
    if dim is None:
        result = torch.min(g)
        if out is not None:
            return out.copy_(result)
        return result
    values, indices = torch.min(g, dim=dim, keepdim=keepdim)
    if out is not None:
        out[0].copy_(values)
        out[1].copy_(indices)
        return out[0], out[1]
    return values, indices


def canonical_min(out, args, kwargs):
    """Values as returned; indices judged by the GELU value they point at (near-ties are legal)."""
    if not isinstance(out, (tuple, list)):
        return out
    values, indices = out
    input = args[0]
    dim = kwargs.get("dim", args[2] if len(args) > 2 else None)
    keepdim = kwargs.get("keepdim", args[3] if len(args) > 3 else False)
    approximate = kwargs.get("approximate", args[1] if len(args) > 1 else 'none')
    if indices.dtype != torch.int64:
        raise ValueError("indices must be int64")
    g = F.gelu(input.double(), approximate=approximate)
    idx = indices if keepdim else indices.unsqueeze(dim)
    if idx.numel() and (idx.min() < 0 or idx.max() >= input.shape[dim]):
        raise ValueError("index out of range")
    picked = torch.gather(g, dim, idx).to(values.dtype)
    return values, picked if keepdim else picked.squeeze(dim)


def upstream_reference(input, approximate='none', dim=None, keepdim=False, out=None):
    """What the public reference computes: its 'none' branch drops the 0.5*x term of GELU."""
    if approximate == 'none':
        g = input * torch.erf(input / math.sqrt(2.0)) / 2.0
    else:
        g = F.gelu(input, approximate='tanh')
    if dim is None:
        return torch.min(g)
    return tuple(torch.min(g, dim=dim, keepdim=keepdim))
