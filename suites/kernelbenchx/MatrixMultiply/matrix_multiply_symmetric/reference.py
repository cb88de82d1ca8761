"""Reference for MatrixMultiply/matrix_multiply_symmetric.py: alpha * C1 @ C1^T + beta * C1 with C1 = alpha * A @ B + beta * C."""

import torch


def matrix_multiply_symmetric(A, B, C, alpha, beta):
    c1 = torch.addmm(C, A, B, beta=beta, alpha=alpha)
    # C1 is its own `input` here: beta * C1 + alpha * (C1 @ C1^T) in one addmm.
    return torch.addmm(c1, c1, c1.t(), beta=beta, alpha=alpha)
