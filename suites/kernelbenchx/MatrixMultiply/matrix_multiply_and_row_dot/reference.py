"""Reference for MatrixMultiply/matrix_multiply_and_row_dot.py: dot product of rows 0 and 1 of alpha * A @ B + beta * C."""

import torch


def matrix_multiply_and_row_dot(A, B, alpha, beta, C):
    # torch.addmm forms alpha * (A @ B) + beta * C in one call; torch.dot then takes rows 0 and 1.
    c1 = torch.addmm(C, A, B, beta=beta, alpha=alpha)
    return torch.dot(c1[0], c1[1])
