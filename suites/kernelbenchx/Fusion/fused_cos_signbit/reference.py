"""Reference for Fusion/fused_cos_signbit.py: cos(input) and the sign bit of that cosine."""

import math

import torch

_SIGN_BAND = 1e-5  # |cos(x)| below this: the sign is left to the kernel's rounding


def fused_cos_signbit(input):
    c = torch.cos(input)
    return c, torch.signbit(c)


def canonical_cos_signbit(out, args, kwargs):
    c, s = out
    if not isinstance(s, torch.Tensor) or s.dtype != torch.bool or s.shape != c.shape:
        raise ValueError("the sign output must be a bool tensor shaped like the cosine")
    ambiguous = torch.cos(args[0].double()).abs() < _SIGN_BAND
    return c, torch.where(ambiguous.to(s.device), torch.zeros_like(s), s)


def special_values(gen, device):
    """Fixed values: signed zeros, multiples of pi/2 rounded to float32, and large arguments."""
    vals = [0.0, -0.0, math.pi, -math.pi, math.pi / 2, -math.pi / 2, 3 * math.pi / 2, 1e4, -1e4, 100.0]
    return torch.tensor(vals, dtype=torch.float32).to(device)
