"""Reference for LinearAlgebra/invert_matrix_lu.py: matrix inverse through an LU factorisation."""

import torch


def invert_matrix_lu(A, *, pivot=True, out=None):
    # A = P L U  =>  A^-1 = U^-1 L^-1 P^T. torch.linalg.inv does exactly this (LU with partial pivoting,
    # then triangular solves against the identity); the inverse is the same with or without pivoting.
    result = torch.linalg.inv(A)
    if out is not None:
        out.copy_(result)
        return out
    return result


def upstream_reference(A, *, pivot=True, out=None):
    """What KernelBench-X's reference computes: U^-1 L^-1 P, i.e. P where P^T belongs."""
    if pivot:
        P, L, U = torch.linalg.lu(A, pivot=True)
        result = torch.linalg.solve(U, torch.linalg.solve(L, P))
    else:
        # Without pivoting upstream solves against the identity, which gives the true inverse
        # (its torch.linalg.lu(pivot=False) exists only on CUDA).
        result = torch.linalg.inv(A)
    if out is not None:
        out.copy_(result)
        return out
    return result


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]


def dominant_matrix(gen, device, n, batch=0, dtype="float32", permute=False, outlier_p=0.0,
                    outlier_scale=1.0, noncontig=False):
    """A well-conditioned [batch..., n, n] matrix.

    randn entries (outliers multiplied by `outlier_scale` with probability `outlier_p`), then each
    diagonal entry keeps its sign and gets magnitude |a_ii| + 1 + sum of the row's other |a_ij|: strictly
    row diagonally dominant, so LU without pivoting is stable and |det| is far from zero. With
    `permute`, the rows are then shuffled by a random permutation (partial pivoting has real work
    to do and the determinant's sign changes with the permutation's parity).
    """
    shape = ([batch] if batch else []) + [n, n]
    a = torch.randn(shape, generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64) < outlier_p
        a = torch.where(hit, a * outlier_scale, a)
    d = a.diagonal(dim1=-2, dim2=-1)
    off = a.abs().sum(-1) - d.abs()
    a.diagonal(dim1=-2, dim2=-1).copy_(torch.where(d < 0, -1.0, 1.0) * (d.abs() + 1.0 + off))
    if permute:
        flat = a.reshape(-1, n, n)
        for i in range(flat.shape[0]):
            flat[i] = flat[i][torch.randperm(n, generator=gen)]
        a = flat.reshape(shape)
    a = a.to(getattr(torch, dtype)).to(device)
    return _noncontiguous(a) if noncontig else a


def _device_generator(gen, device):
    """A generator on `device` seeded from the case generator (large perf inputs are drawn there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def rand_plus_eye(gen, device, n, dtype="float32"):
    """Perf input as upstream: rand(n, n) + 0.001 * I, drawn on the device."""
    g = _device_generator(gen, device)
    a = torch.rand(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    a.diagonal().add_(0.001)
    return a
