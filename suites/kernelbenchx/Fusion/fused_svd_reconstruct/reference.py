"""Reference for Fusion/fused_svd_reconstruct.py: rebuild a matrix from its thin SVD."""

import torch


def fused_svd_reconstruct(A):
    # Thin SVD, then U diag(S) Vh with the diagonal applied as a column scaling of U.
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return (U * S.unsqueeze(-2)) @ Vh


def _orthonormal(gen, rows, cols):
    q, r = torch.linalg.qr(torch.randn(rows, cols, generator=gen, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


def spectrum_matrix(gen, device, m, n, low=0.25, high=1.0, rank=None, outlier_p=0.0, outlier_scale=1.0,
                    dtype="float32"):
    """U diag(s) V^T with random orthonormal U [m, k], V [n, k] and s uniform in [low, high].

    `rank` zeroes all but the first `rank` singular values; outliers multiply some s by outlier_scale.
    """
    k = min(m, n)
    s = low + (high - low) * torch.rand(k, generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(k, generator=gen, dtype=torch.float64) < outlier_p
        s = torch.where(hit, s * outlier_scale, s)
    if rank is not None:
        s[rank:] = 0.0
    u = _orthonormal(gen, m, k)
    v = _orthonormal(gen, n, k)
    a = (u * s.unsqueeze(0)) @ v.T
    return a.to(getattr(torch, dtype)).to(device)
