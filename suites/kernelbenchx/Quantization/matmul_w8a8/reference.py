"""Reference for Quantization/matmul_w8a8.py: W8A8 matmul, int8 symmetric per-row x per-column, exact int32 sums."""

import torch


def _quantize(x, dim, qmax):
    """Symmetric round-half-to-even quantisation of float32 `x` with one scale per slice along `dim`."""
    scale = x.abs().amax(dim=dim, keepdim=True) / qmax
    q = torch.round(x / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-qmax, qmax)
    return q, scale


def matmul_w8a8(input, weight):
    qa, sa = _quantize(input.float(), -1, 127.0)  # one scale per row of input: [M, 1]
    qw, sw = _quantize(weight.float(), -2, 127.0)  # one scale per output column of weight: [1, N]
    # int8 x int8 products summed exactly (what an int32 accumulator holds), emulated in float64.
    acc = torch.matmul(qa.double(), qw.double()).float()
    return acc * sa * sw


def upstream_reference(input, weight):
    """What the public reference returns: the unquantised float32 product."""
    return torch.matmul(input, weight)


def fixed_matrix(gen, device, values):
    """A float32 matrix with the given rows (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=torch.float32).to(device)
