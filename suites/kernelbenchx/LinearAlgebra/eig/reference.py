"""Reference for LinearAlgebra/eig.py: eigenvalues and right eigenvectors of a general square matrix."""

import torch


def eig(A):
    # torch.linalg.eig: A V = V diag(w), complex w and V (complex64 for float32 A, complex128 for
    # float64 A), each eigenvector column of unit Euclidean norm.
    return torch.linalg.eig(A)


def _sort_key(w):
    # Re + Im / 2 tells apart all eigenvalues of the case matrices, including conjugate pairs.
    return w.real + 0.5 * w.imag


def canonical_eig(out, args, kwargs):
    """Order- and phase-free properties: sorted eigenvalues, residual A V - V diag(w), column norms of V."""
    w, V = out
    A = args[0]
    if w.shape != A.shape[:-1] or V.shape != A.shape:
        raise ValueError("eig returns w [*, n] and V [*, n, n]")
    order = torch.argsort(_sort_key(w), dim=-1)
    w_sorted = torch.gather(w, -1, order)
    A64, w64, V64 = A.to(torch.complex128), w.to(torch.complex128), V.to(torch.complex128)
    residual = A64 @ V64 - V64 * w64.unsqueeze(-2)
    norms = (V64.abs() ** 2).sum(-2).sqrt()
    return w_sorted, residual, norms


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]


def _one_matrix(gen, n, pairs, outlier_p, outlier_scale):
    """Real n x n V B V^-1: B block diagonal (real eigenvalues, 2x2 [[a, b], [-b, a]] blocks for a +- bi),
    V = Q (I + G / (8 sqrt(n))) with Q random orthogonal (condition number about 1.7 or less)."""
    h = 2.0 / (2 * n)
    while True:
        # Sort keys Re + Im/2 on distinct slots of a grid of spacing h in [-1, 1): a pair with keys
        # k1 < k2 is a = (k1 + k2) / 2, b = k2 - k1; keys stay at least h apart.
        slots = torch.randperm(2 * n, generator=gen)[:n].to(torch.float64)
        keys = -1.0 + h * (slots + 0.5)
        reals = keys[2 * pairs:]
        k1, k2 = keys[0:2 * pairs:2], keys[1:2 * pairs:2]
        lo, hi = torch.minimum(k1, k2), torch.maximum(k1, k2)
        a, b = (lo + hi) / 2, hi - lo
        if outlier_p > 0:
            hit_r = torch.rand(reals.shape, generator=gen, dtype=torch.float64) < outlier_p
            hit_p = torch.rand(a.shape, generator=gen, dtype=torch.float64) < outlier_p
            reals = torch.where(hit_r, reals * outlier_scale, reals)
            a, b = torch.where(hit_p, a * outlier_scale, a), torch.where(hit_p, b * outlier_scale, b)
        all_keys = torch.cat([reals, a + b / 2, a - b / 2]).sort().values
        if n < 2 or (all_keys.diff() >= h * 0.99).all():
            break
    B = torch.zeros(n, n, dtype=torch.float64)
    for i in range(pairs):
        B[2 * i, 2 * i] = B[2 * i + 1, 2 * i + 1] = a[i]
        B[2 * i, 2 * i + 1], B[2 * i + 1, 2 * i] = b[i], -b[i]
    idx = torch.arange(2 * pairs, n)
    B[idx, idx] = reals
    q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))
    V = q @ (torch.eye(n, dtype=torch.float64) + torch.randn(n, n, generator=gen, dtype=torch.float64) / (8 * n ** 0.5))
    return V @ B @ torch.linalg.inv(V)


def eig_matrix(gen, device, n, batch=0, dtype="float32", pairs=-1, outlier_p=0.0, outlier_scale=1.0,
               noncontig=False):
    """A real [batch..., n, n] diagonalizable matrix with well-separated eigenvalues of modulus up to
    about 1.5 (outliers: some eigenvalues x`outlier_scale`), `pairs` complex-conjugate pairs among them
    (-1: a random count in 0 .. n // 2) and a well-conditioned eigenvector matrix."""
    mats = []
    for _ in range(max(batch, 1)):
        p = int(torch.randint(0, n // 2 + 1, (1,), generator=gen)) if pairs < 0 else pairs
        mats.append(_one_matrix(gen, n, p, outlier_p, outlier_scale))
    a = torch.stack(mats) if batch else mats[0]
    a = a.to(getattr(torch, dtype)).to(device)
    return _noncontiguous(a) if noncontig else a
