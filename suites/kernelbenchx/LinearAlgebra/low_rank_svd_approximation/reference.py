"""Reference for LinearAlgebra/low_rank_svd_approximation.py: best rank-k approximation through the SVD."""

import torch


def low_rank_svd_approximation(A, k, *, full_matrices=True, out=None):
    # Keep the k largest singular triplets: A_k = U[:, :k] diag(S[:k]) Vh[:k, :] (Eckart-Young).
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    result = (U[..., :, :k] * S[..., None, :k]) @ Vh[..., :k, :]
    if out is not None:
        out.copy_(result)
        return out
    return result


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]




def spectrum_matrix(gen, device, m, n, batch=0, dtype="float32", low=0.5, high=2.0, gap_at=0, outlier_p=0.0,
                    outlier_scale=1.0, noncontig=False):
    """A [batch..., m, n] matrix U diag(s) V^T with random orthonormal U, V and chosen singular values.

    s is uniform in [low, high]; with `gap_at` = k > 0 the k largest are uniform in [1, 1.25] and the rest
    in [0, 0.25], so the rank-k truncation is well separated. Outliers multiply singular values (only the k largest with `gap_at`) by
    `outlier_scale` with probability `outlier_p`.
    """
    r = min(m, n)
    lead = [batch] if batch else []
    u, _ = torch.linalg.qr(torch.randn(lead + [m, r], generator=gen, dtype=torch.float64))
    v, _ = torch.linalg.qr(torch.randn(lead + [n, r], generator=gen, dtype=torch.float64))
    t = torch.rand(lead + [r], generator=gen, dtype=torch.float64)
    if gap_at:
        idx = torch.arange(r)
        s = torch.where(idx < gap_at, 1.0 + 0.25 * t, 0.25 * t)
    else:
        s = low + (high - low) * t
    if outlier_p > 0:
        hit = torch.rand(lead + [r], generator=gen, dtype=torch.float64) < outlier_p
        if gap_at:
            hit &= torch.arange(r) < gap_at  # only the kept values: the gap at k stays open
        s = torch.where(hit, s * outlier_scale, s)
    a = (u * s.unsqueeze(-2)) @ v.mT
    a = a.to(getattr(torch, dtype)).to(device)
    return _noncontiguous(a) if noncontig else a
