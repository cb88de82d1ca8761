"""Reference for Quantization/matmul_w8a8.py: the exact float32 product that W8A8 results are measured against."""

import torch


def matmul_w8a8(input, weight):
    # The reference is unquantised on purpose: the metrics contract bounds the quantisation error.
    return torch.matmul(input, weight)


def fixed_matrix(gen, device, values):
    """A float32 matrix with the given rows (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=torch.float32).to(device)
