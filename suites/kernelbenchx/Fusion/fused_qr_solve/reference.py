"""Reference for Fusion/fused_qr_solve.py: least-squares solve of A x = b through a reduced QR factorisation."""

import torch


def fused_qr_solve(A, b):
    m, n = A.shape
    if m < n:
        raise RuntimeError(f"fused_qr_solve needs a tall or square A (m >= n), got {m}x{n}")
    Q, R = torch.linalg.qr(A, mode="reduced")   # A = Q R, Q (m, n) orthonormal columns, R (n, n) upper triangular
    return torch.linalg.solve_triangular(R, Q.mT @ b, upper=True)


def well_conditioned(gen, device, m, n, outlier_p=0.0, outlier_scale=1.0):
    """2 * [I_n; 0] + G / (2 sqrt(m)) with G standard normal (optionally with outliers): singular values in about [1, 3]."""
    g = torch.randn(m, n, generator=gen, dtype=torch.float32)
    if outlier_p > 0:
        hit = torch.rand(m, n, generator=gen, dtype=torch.float32) < outlier_p
        g = torch.where(hit, g * outlier_scale, g)
    a = g.double() / (2.0 * m ** 0.5)
    a[:n, :n] += 2.0 * torch.eye(n, dtype=torch.float64)
    return a.to(torch.float32).to(device)
