"""Reference for LinearAlgebra/solve_symmetric_ldl.py: solve a symmetric / Hermitian linear system."""

import torch


def solve_symmetric_ldl(A, b, hermitian=False, out=None):
    # The LDL^T (LDL^H) route and an LU solve give the same x; torch.linalg.solve is the fused eager call
    # (torch.linalg.ldl_solve is not available on every device). b is promoted to A's type.
    dtype = torch.promote_types(A.dtype, b.dtype)
    result = torch.linalg.solve(A.to(dtype), b.to(dtype))
    if out is not None:
        out.copy_(result)
        return out
    return result


def upstream_reference(A, b, hermitian=False, out=None):
    """What KernelBench-X's reference computes: a solve against LD diag(pivots) LD^T, not against A."""
    dtype = torch.complex64 if (hermitian and A.is_complex()) else torch.float32
    A, b = A.to(dtype), b.to(dtype)
    LD, pivots = torch.linalg.ldl_factor(A, hermitian=hermitian)
    M = LD @ torch.diag_embed(pivots.to(LD.dtype)) @ (LD.mH if hermitian else LD.mT)
    result = torch.linalg.solve(M, b)
    if out is not None:
        out.copy_(result)
        return out
    return result


def hermitian_matrix(gen, device, n, batch=0, dtype="float32", outlier_p=0.0, outlier_scale=1.0):
    """A symmetric (real) or Hermitian (complex) indefinite [batch..., n, n] matrix Q diag(w) Q^H.

    Q is a random orthogonal / unitary matrix; |w| is uniform in [0.5, 2] with random signs (outliers:
    |w| multiplied by `outlier_scale` with probability `outlier_p`), so A is well conditioned.
    """
    shape = ([batch] if batch else []) + [n, n]
    tdtype = getattr(torch, dtype)
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if tdtype.is_complex:
        x = torch.complex(x, torch.randn(shape, generator=gen, dtype=torch.float64))
    q, _ = torch.linalg.qr(x)
    w = 0.5 + 1.5 * torch.rand(shape[:-1], generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < outlier_p
        w = torch.where(hit, w * outlier_scale, w)
    w = torch.where(torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < 0.5, -w, w)
    a = (q * w.unsqueeze(-2).to(q.dtype)) @ q.mH
    a = (a + a.mH) / 2
    return a.to(tdtype).to(device)


def _device_generator(gen, device):
    """A generator on `device` seeded from the case generator (large perf inputs are drawn there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def gram_perf(gen, device, n, dtype="float32"):
    """Perf input as upstream: X X^T + 1e-6 I for a rand X, drawn and multiplied on the device."""
    g = _device_generator(gen, device)
    x = torch.rand(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    a = x @ x.mT
    a.diagonal().add_(1e-6)
    return a
