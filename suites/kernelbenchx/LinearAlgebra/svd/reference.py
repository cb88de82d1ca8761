"""Reference for LinearAlgebra/svd.py: singular value decomposition."""

import torch


def svd(A, full_matrices=True):
    # torch.linalg.svd: A = U diag(S) Vh, S descending; U, Vh unitary (full) or with orthonormal columns/rows.
    return torch.linalg.svd(A, full_matrices=full_matrices)


# The float32 tolerance at 1.0 (rtol + atol), and how far from the identity U^T U may be: a backward
# stable float32 SVD keeps it within a small multiple of n * eps for n rows, and cuSOLVER's Jacobi SVD
# on an H200 reached 2.2e-5 at n = 64 (beyond the 2e-5 tolerance at 1.0), so the deviation is judged
# against 16 * n * eps where that exceeds the tolerance. A half-precision SVD stays ~10x outside.
_TOL_AT_ONE = 2e-5
_EPS32 = 2.0 ** -23


def _gram(Q, rows):
    """Q^T Q (Q [*, rows, c]) with its deviation from the identity in units of the float32 bound."""
    G = Q.mT @ Q
    scale = max(1.0, 16 * rows * _EPS32 / _TOL_AT_ONE)
    if scale == 1.0:
        return G
    eye = torch.eye(G.shape[-1], dtype=G.dtype, device=G.device)
    return eye + (G - eye) / scale


def canonical_svd(out, args, kwargs):
    """Sign-free properties of an SVD: reconstruction, orthonormality of U and Vh, and the singular values."""
    U, S, Vh = out
    k = S.shape[-1]
    recon = (U[..., :, :k] * S[..., None, :]) @ Vh[..., :k, :]
    return recon, _gram(U, U.shape[-2]), _gram(Vh.mT, Vh.shape[-1]), S


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
