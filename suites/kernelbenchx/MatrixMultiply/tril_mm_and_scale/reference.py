"""Reference for MatrixMultiply/tril_mm_and_scale.py: beta * (alpha * (tril(A) @ B))."""

import torch


def tril_mm_and_scale(A, B, alpha, beta):
    out = torch.mm(torch.tril(A), B)
    return out.mul_(alpha).mul_(beta)


def heavy_upper(gen, device, n):
    """A float32 [n, n] matrix: randn on and below the diagonal, randn * 1000 above it."""
    a = torch.randn(n, n, generator=gen, dtype=torch.float32)
    a = torch.where(torch.ones(n, n, dtype=torch.bool).triu(1), a * 1000.0, a)
    return a.to(device)
