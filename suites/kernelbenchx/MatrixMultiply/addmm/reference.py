"""Reference for MatrixMultiply/addmm.py: beta * input + alpha * (mat1 @ mat2)."""

import torch


def addmm(input, mat1, mat2, beta=1, alpha=1, out=None):
    # torch.addmm fuses the product and the scaled add (cuBLAS epilogue); beta == 0 ignores `input`.
    return torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def nan_matrix(gen, device, rows, cols):
    """A float32 [rows, cols] matrix of NaN (no randomness): the `input` of a beta = 0 case."""
    return torch.full((rows, cols), float("nan"), dtype=torch.float32, device=device)
