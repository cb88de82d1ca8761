"""Reference for LinearAlgebra/solve.py: solution of the square linear system A X = B."""

import torch


def solve(A, B):
    # torch.linalg.solve: LU with partial pivoting, then two triangular solves. It raises
    # torch.linalg.LinAlgError for an exactly singular A and RuntimeError for a non-square A.
    return torch.linalg.solve(A, B)


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


def singular_matrix(gen, device, n=2, dtype="float32"):
    """An exactly singular [n, n] matrix: randn with its last column zero, so elimination meets an
    exact zero pivot on any device and in any order of operations (a row twice another does not:
    a GPU solver that multiplies by a rounded reciprocal leaves a tiny nonzero pivot)."""
    a = torch.randn(n, n, generator=gen, dtype=torch.float32)
    a[:, -1] = 0
    return a.to(getattr(torch, dtype)).to(device)


def shifted_randn(gen, device, n, dtype="float32"):
    """Perf input: randn(n, n) + n * I, drawn on the device."""
    g = _device_generator(gen, device)
    a = torch.randn(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    a.diagonal().add_(n)
    return a
