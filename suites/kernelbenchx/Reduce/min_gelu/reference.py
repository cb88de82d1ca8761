"""Reference for Reduce/min_gelu.py: GELU (exact or tanh form), then the minimum overall or along a dim."""

import math

import torch
import torch.nn.functional as F


def min_gelu(input, dim=None, keepdim=False, approximate='none', out=None):
    g = F.gelu(input, approximate=approximate)
    if dim is None:
        return torch.min(g) if out is None else torch.min(g, out=out)
    if out is not None:
        return torch.min(g, dim, keepdim=keepdim, out=out)
    values, indices = torch.min(g, dim, keepdim=keepdim)
    return values, indices


def _call_args(args, kwargs):
    names = ("input", "dim", "keepdim", "approximate")
    bound = {"dim": None, "keepdim": False, "approximate": "none"}
    bound.update(dict(zip(names, args)))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    return bound


def canonical_min_gelu(out, args, kwargs):
    """Values as returned; indices replaced by the float64 GELU of the input at those positions."""
    call = _call_args(args, kwargs)
    if call["dim"] is None:
        return out
    values, indices = out
    x = call["input"].double()
    dim = call["dim"] % x.dim()
    if indices.dtype != torch.int64:
        raise ValueError("indices must be int64")
    idx = indices if call["keepdim"] else indices.unsqueeze(dim)
    if idx.numel() and (bool((idx < 0).any()) or bool((idx >= x.size(dim)).any())):
        raise ValueError("index out of range")
    g = F.gelu(x, approximate=call["approximate"])
    picked = g.gather(dim, idx)
    if not call["keepdim"]:
        picked = picked.squeeze(dim)
    return values, picked


def upstream_reference(input, dim=None, keepdim=False, approximate='none', out=None):
    """What the public reference computes: its 'none' branch is x * erf(x / sqrt(2)) / 2."""
    if approximate == 'none':
        g = input * torch.erf(input / math.sqrt(2.0)) / 2
    else:
        g = 0.5 * input * (1 + torch.tanh(math.sqrt(2 / math.pi) * (input + 0.044715 * input ** 3)))
    if dim is None:
        return torch.min(g)
    values, indices = torch.min(g, dim, keepdim=keepdim)
    return values, indices
