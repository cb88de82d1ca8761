"""Reference for MatrixMultiply/matrix_vector_dot.py: y <- alpha * A @ x + beta * y in place, then dot(y, x)."""

import torch


def matrix_vector_dot(A, x, y, alpha, beta):
    # torch.addmv writes alpha * (A @ x) + beta * y straight into y (cuBLAS gemv), then torch.dot.
    y.addmv_(A, x, beta=beta, alpha=alpha)
    return torch.dot(y, x)
