"""Reference for Fusion/fused_cholesky_solve.py: solve A x = b through the Cholesky factor of an SPD A."""

import torch


def fused_cholesky_solve(A, b):
    L = torch.linalg.cholesky(A)  # raises torch.linalg.LinAlgError when A is not positive definite
    return torch.cholesky_solve(b, L)


def spd_matrix(gen, device, n, outlier_p=0.0, outlier_scale=1.0):
    """G G^T / n + I with G standard normal: symmetric, eigenvalues in about [1, 5]."""
    g = torch.randn(n, n, generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(n, n, generator=gen, dtype=torch.float64) < outlier_p
        g = torch.where(hit, g * outlier_scale, g)
    a = g @ g.T / n + torch.eye(n, dtype=torch.float64)
    return a.to(torch.float32).to(device)


def upstream_spd(gen, device, n):
    """KernelBench-X's perf matrix: U U^T + n I with U uniform in [0, 1)."""
    u = torch.rand(n, n, generator=gen, dtype=torch.float32)
    return (u @ u.T + n * torch.eye(n, dtype=torch.float32)).to(device)


def indefinite_matrix(gen, device, n):
    """A symmetric matrix with one negative eigenvalue: diag(-1, 2, 3, ...) rotated by a random orthogonal Q."""
    q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))
    d = torch.arange(1, n + 1, dtype=torch.float64)
    d[0] = -1.0
    a = q @ torch.diag(d) @ q.T
    return ((a + a.T) / 2).to(torch.float32).to(device)
