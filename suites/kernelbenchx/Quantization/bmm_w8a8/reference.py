"""Reference for Quantization/bmm_w8a8.py: batched W8A8 matmul, int8 symmetric per-row x per-column, exact int32 sums."""

import torch


def _quantize(x, dim, qmax):
    """Symmetric round-half-to-even quantisation of float32 `x` with one scale per slice along `dim`."""
    scale = x.abs().amax(dim=dim, keepdim=True) / qmax
    q = torch.round(x / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-qmax, qmax)
    return q, scale


def bmm_w8a8(input, mat2):
    qa, sa = _quantize(input.float(), -1, 127.0)  # one scale per row of input: [B, M, 1]
    qb, sb = _quantize(mat2.float(), -2, 127.0)  # one scale per column of mat2: [B, 1, N]
    # int8 x int8 products summed exactly (what an int32 accumulator holds), emulated in float64.
    acc = torch.bmm(qa.double(), qb.double()).float()
    return acc * sa * sb


def masked_randn(gen, device, shape, std=1.0, zero=None, dtype="float32"):
    """randn * std of `shape`; `zero` lists indices along the first dim whose slices are set to 0."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * std
    for i in zero or []:
        x[i] = 0
    return x.to(getattr(torch, dtype)).to(device)


def fixed(gen, device, values, dtype="float32"):
    """A tensor with the given values (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(device)
