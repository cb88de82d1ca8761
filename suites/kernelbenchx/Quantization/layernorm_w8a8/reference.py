"""Reference for Quantization/layernorm_w8a8.py: float32 layer norm whose output is fake-quantised to int8 per row."""

import torch
import torch.nn.functional as F


def layernorm_w8a8(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    y = F.layer_norm(input, tuple(normalized_shape), weight, bias, eps)
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    # Symmetric int8, one scale per normalised row, round half to even, clamp to [-127, 127].
    scale = y.abs().amax(dim=dims, keepdim=True) / 127.0
    q = torch.round(y / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-127.0, 127.0)
    return q * scale


def masked_randn(gen, device, shape, std=1.0, zero=None, dtype="float32"):
    """randn * std of `shape`; `zero` lists indices along the first dim whose slices are set to 0."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * std
    for i in zero or []:
        x[i] = 0
    return x.to(getattr(torch, dtype)).to(device)


def fixed(gen, device, values, dtype="float32"):
    """A tensor with the given values (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(device)
