"""Reference for LinearAlgebra/solve_and_add_scaled_vector.py: upper-triangular solve, then add alpha * y."""

import torch


def solve_and_add_scaled_vector(A, b, y, alpha):
    # torch.linalg.solve_triangular plus an in-place add on the fresh solution, as in KernelBench-X.
    x = torch.linalg.solve_triangular(A, b, upper=True)
    x += alpha * y
    return x


def upper_triangular(gen, device, n, dtype="float32", outlier_p=0.0, outlier_scale=1.0):
    """A well-conditioned upper-triangular [n, n] matrix: randn entries, |diagonal| >= n."""
    draw = torch.float64 if dtype == "float64" else torch.float32
    a = torch.randn(n, n, generator=gen, dtype=draw)
    if outlier_p > 0:
        hit = torch.rand(n, n, generator=gen, dtype=torch.float64) < outlier_p
        a = torch.where(hit, a * outlier_scale, a)
    a = torch.triu(a)
    d = a.diagonal()
    a.diagonal().copy_(torch.where(d < 0, d - n, d + n))
    return a.to(getattr(torch, dtype)).to(device)
