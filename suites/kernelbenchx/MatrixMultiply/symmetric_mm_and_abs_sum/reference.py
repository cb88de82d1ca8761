"""Reference for MatrixMultiply/symmetric_mm_and_abs_sum.py: sum(|alpha * A @ A^T + beta * C|)."""

import torch


def symmetric_mm_and_abs_sum(A, C, alpha, beta):
    c1 = torch.addmm(C, A, A.t(), beta=beta, alpha=alpha)
    return c1.abs_().sum()
