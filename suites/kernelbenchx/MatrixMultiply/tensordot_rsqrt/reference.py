"""Reference for MatrixMultiply/tensordot_rsqrt.py: elementwise rsqrt of torch.tensordot(a, b, dims)."""

import torch


def tensordot_rsqrt(a, b, dims):
    return torch.tensordot(a, b, dims=dims).rsqrt_()


def alternating_sign_columns(gen, device, rows, cols):
    """A float32 [rows, cols] matrix uniform in [0.1, 1.1) with every odd column negated."""
    m = torch.rand(rows, cols, generator=gen, dtype=torch.float32) + 0.1
    sign = torch.tensor([1.0 if j % 2 == 0 else -1.0 for j in range(cols)], dtype=torch.float32)
    return (m * sign).to(device)
