"""Reference for LinearAlgebra/cholesky_solve.py: solve A X = B from a Cholesky factor of A."""

import math

import torch


def cholesky_solve(B, L, upper=False, out=None):
    # A = L L^H (or U^H U when upper): two triangular solves, forward then backward.
    return torch.cholesky_solve(B, L, upper=upper, out=out)


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]




def hpd_matrix(gen, device, n, batch=0, dtype="float64", outlier_p=0.0, outlier_scale=1.0, noncontig=False):
    """A Hermitian (symmetric when real) positive definite [batch..., n, n] matrix, eigenvalues in about [1, 5].

    X has randn entries (complex: real and imaginary parts randn / sqrt(2)), outliers multiplied by
    `outlier_scale` with probability `outlier_p`; A = X X^H / n + I, made exactly Hermitian.
    """
    shape = ([batch] if batch else []) + [n, n]
    tdtype = getattr(torch, dtype)
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if tdtype.is_complex:
        x = torch.complex(x, torch.randn(shape, generator=gen, dtype=torch.float64)) / math.sqrt(2.0)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64) < outlier_p
        x = torch.where(hit, x * outlier_scale, x)
    a = x @ x.mH / n
    a = (a + a.mH) / 2
    a.diagonal(dim1=-2, dim2=-1).add_(1.0)
    a = a.to(tdtype).to(device)
    return _noncontiguous(a) if noncontig else a


def _device_generator(gen, device):
    """A generator on `device` seeded from the case generator (large perf inputs are drawn there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def cholesky_factor(gen, device, n, batch=0, dtype="float64", upper=False, outlier_p=0.0, outlier_scale=1.0,
                    noncontig=False):
    """The Cholesky factor (lower, or upper = its conjugate transpose) of an `hpd_matrix`, dense in
    row-major order as the public tests pass it (torch.linalg.cholesky's own result is column-major),
    or a strided view with `noncontig`."""
    a = hpd_matrix(gen, "cpu", n, batch=batch, dtype="complex128" if "complex" in dtype else "float64",
                   outlier_p=outlier_p, outlier_scale=outlier_scale)
    f = torch.linalg.cholesky(a, upper=upper).to(getattr(torch, dtype)).contiguous().to(device)
    return _noncontiguous(f) if noncontig else f


def triangular_perf(gen, device, n, dtype="float32"):
    """Perf input: tril(rand(n, n)) with n added to the diagonal, drawn on the device."""
    g = _device_generator(gen, device)
    f = torch.rand(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    f.tril_()
    f.diagonal().add_(n)
    return f
