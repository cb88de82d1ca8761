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
_ATOL = 1e-5
_EPS32 = 2.0 ** -23


def _gram(Q, rows):
    """Q^T Q (Q [*, rows, c]) with its deviation from the identity in units of the float32 bound."""
    G = Q.mT @ Q
    scale = max(1.0, 16 * rows * _EPS32 / _TOL_AT_ONE)
    if scale == 1.0:
        return G
    eye = torch.eye(G.shape[-1], dtype=G.dtype, device=G.device)
    return eye + (G - eye) / scale


def _backward_scale(A):
    """Per matrix of A, how many times the float32 tolerance a backward-stable SVD's error may be.

    A float32 SVD computes the exact SVD of A + E with ||E||_2 <= c max(m, n) eps ||A||_2 (c a small
    constant; taken as 4), so its reconstruction differs from A, and (Weyl) each singular value from
    A's, by up to that much, whatever the algorithm. Elementwise, the tolerance at small entries is
    atol = 1e-5: at ||A||_2 = 20 (an outlier singular value) the bound is 6.1e-4 for 64 rows, and
    cuSOLVER on an H200 reached 3.1e-5 in 1 of 390 draws. Computed from the trusted input A (in
    float64), never from the candidate's S.
    """
    A64 = A.to(torch.float64)
    m, n = A.shape[-2], A.shape[-1]
    norm = torch.linalg.matrix_norm(A64, ord=2) if A.numel() else torch.zeros(A.shape[:-2], dtype=torch.float64)
    return torch.clamp(4 * max(m, n) * _EPS32 * norm / _ATOL, min=1.0), A64


def canonical_svd(out, args, kwargs):
    """Sign-free properties of an SVD: reconstruction, orthonormality of U and Vh, and the singular values.

    The reconstruction's difference from A and S's from A's singular values are divided by
    _backward_scale(A) where that exceeds 1, so that every backward-stable float32 SVD passes at any
    ||A||; a half-precision SVD is still far outside (its U^T U alone fails).
    """
    U, S, Vh = out
    k = S.shape[-1]
    A = args[0] if args else kwargs["A"]
    recon = (U[..., :, :k] * S[..., None, :]) @ Vh[..., :k, :]
    scale, A64 = _backward_scale(A)
    scale = scale.to(A64.device)
    # Only where the shapes are right (a wrong shape must reach the comparison as it is).
    shaped = recon.shape == A.shape and S.shape == A.shape[:-2] + (min(A.shape[-2:]),)
    if shaped and bool((scale > 1.0).any()):
        sv = torch.linalg.svdvals(A64)
        recon = (A64 + (recon.to(torch.float64) - A64) / scale[..., None, None]).to(recon.dtype)
        S = (sv + (S.to(torch.float64) - sv) / scale[..., None]).to(S.dtype)
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
