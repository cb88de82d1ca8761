"""Reference for Normalization/symmetric_matrix_vector_norm.py: the p-norm of (1 + beta) * alpha * A x."""

import torch


def symmetric_matrix_vector_norm(A, x, alpha, beta, p=2.0):
    y = torch.mv(A, x).mul_(alpha)
    y.add_(y, alpha=beta)  # y + beta * y
    return torch.linalg.vector_norm(y, ord=p)


def symmetric_matrix(gen, device, n, dtype="float32", outlier_p=0.0, outlier_scale=1.0):
    """(B + B^T) / 2 for B randn, optionally with outliers in B."""
    b = torch.randn(n, n, generator=gen, dtype=torch.float32)
    if outlier_p > 0:
        hit = torch.rand(n, n, generator=gen, dtype=torch.float64) < outlier_p
        b = torch.where(hit, b * outlier_scale, b)
    return ((b + b.T) / 2).to(getattr(torch, dtype)).to(device)


def symmetric_matrix_on_device(gen, device, n):
    """Perf input: (B + B^T) / 2 for B uniform in [0, 1), drawn on `device` from a generator seeded
    by the case generator (a 16384 x 16384 matrix takes seconds on the CPU, milliseconds there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    b = torch.rand(n, n, generator=g, device=device, dtype=torch.float32)
    return (b + b.T) / 2
