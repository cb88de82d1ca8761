"""Reference for LinearAlgebra/lu.py: LU decomposition, with or without partial pivoting."""

import torch


def _lu_no_pivot(A):
    """Doolittle elimination without row exchanges, batched: A = L U, L unit lower trapezoidal."""
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    U = A.clone()
    L = torch.zeros(*A.shape[:-2], m, k, dtype=A.dtype, device=A.device)
    for j in range(k):
        L[..., j:, j] = U[..., j:, j] / U[..., j:j + 1, j]
        U[..., j + 1:, :] -= L[..., j + 1:, j:j + 1] * U[..., j:j + 1, :]
    return L, torch.triu(U[..., :k, :])


def lu(A, pivot=True, out=None):
    # torch.linalg.lu: A = P L U. Without pivoting it runs only on CUDA, so on other devices the
    # unpivoted factors come from a plain elimination loop (the result is the same unique L, U).
    if pivot or A.is_cuda:
        return torch.linalg.lu(A, pivot=pivot, out=out)
    L, U = _lu_no_pivot(A)
    P = torch.empty(0, dtype=A.dtype, device=A.device)
    if out is not None:
        for dst, src in zip(out, (P, L, U)):
            dst.resize_(src.shape).copy_(src)
        return out
    return P, L, U


def canonical_lu(out, args, kwargs):
    """Pivot-free properties of an LU result.

    pivot=True: (P L U in float64, strictly upper part of L, diagonal of L, strictly lower part of U,
    "P is a permutation matrix", "|L| <= 1"). pivot=False: P must be empty and (L, U) are unique.
    """
    P, L, U = out
    A = args[0]
    pivot = kwargs.get("pivot", args[1] if len(args) > 1 else True)
    if not pivot:
        if P.numel() != 0:
            raise ValueError("pivot=False returns an empty P")
        return L, U
    m = A.shape[-2]
    is_perm = bool(((P == 0) | (P == 1)).all()
                   and (P.sum(-1) == 1).all() and (P.sum(-2) == 1).all()) if m > 0 else True
    bounded = bool((L.abs() <= 1 + 1e-5).all())
    plu = P.double() @ L.double() @ U.double()
    return (plu, torch.triu(L, 1), L.diagonal(dim1=-2, dim2=-1), torch.tril(U, -1),
            torch.tensor(is_perm), torch.tensor(bounded))


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]


def dominant_matrix(gen, device, m, n, batch=0, dtype="float32", outlier_p=0.0, outlier_scale=1.0,
                    noncontig=False):
    """A [batch..., m, n] randn matrix (outliers: x`outlier_scale` with probability `outlier_p`) whose
    leading min(m, n) diagonal entries are pushed 2 * (|row| + |column| sums) away from zero, so every
    leading minor is well conditioned and elimination without pivoting is stable."""
    shape = ([batch] if batch else []) + [m, n]
    a = torch.randn(shape, generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64) < outlier_p
        a = torch.where(hit, a * outlier_scale, a)
    k = min(m, n)
    d = a.diagonal(dim1=-2, dim2=-1)
    push = a.abs().sum(-1)[..., :k] + a.abs().sum(-2)[..., :k]
    d.copy_(torch.where(d < 0, d - push, d + push))
    a = a.to(getattr(torch, dtype)).to(device)
    return _noncontiguous(a) if noncontig else a
