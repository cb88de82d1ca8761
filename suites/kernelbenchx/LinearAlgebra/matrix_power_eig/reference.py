"""Reference for LinearAlgebra/matrix_power_eig.py: real power of a symmetric matrix via its eigendecomposition."""

import torch


def matrix_power_eig(A, k, *, out=None):
    # A = V diag(w) V^T (torch.linalg.eigh, batched)  =>  A^k = V diag(w^k) V^T.
    w, V = torch.linalg.eigh(A)
    result = V @ torch.diag_embed(w.pow(k)) @ V.mT
    if out is not None:
        out.copy_(result)
        return out
    return result


def upstream_reference(A, k, *, out=None):
    """What KernelBench-X's reference computes: torch.diag, which builds a matrix only from a 1-D w.

    For a batch, w is 2-D, torch.diag extracts its diagonal instead and the matmuls broadcast
    into a result of the right shape but the wrong values.
    """
    w, V = torch.linalg.eigh(A)
    result = V @ (torch.diag(w.pow(k)) @ V.mT)
    if out is not None:
        out.copy_(result)
        return out
    return result


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]




def symmetric_matrix(gen, device, n, batch=0, dtype="float32", positive=False, outlier_p=0.0, outlier_scale=1.0,
                     noncontig=False):
    """A symmetric [batch..., n, n] matrix Q diag(w) Q^T with a random orthogonal Q.

    |w| is uniform in [0.5, 2] (outliers: multiplied by `outlier_scale` with probability `outlier_p`);
    with `positive` every w is positive (positive definite), otherwise each sign is random.
    """
    shape = ([batch] if batch else []) + [n, n]
    q, _ = torch.linalg.qr(torch.randn(shape, generator=gen, dtype=torch.float64))
    w = 0.5 + 1.5 * torch.rand(shape[:-1], generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < outlier_p
        w = torch.where(hit, w * outlier_scale, w)
    if not positive:
        w = torch.where(torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < 0.5, -w, w)
    a = q @ torch.diag_embed(w) @ q.mT
    a = (a + a.mT) / 2
    a = a.to(getattr(torch, dtype)).to(device)
    return _noncontiguous(a) if noncontig else a


def _device_generator(gen, device):
    """A generator on `device` seeded from the case generator (large perf inputs are drawn there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def symmetric_perf(gen, device, n, dtype="float32"):
    """Perf input as upstream: (R + R^T) / 2 for a randn R, drawn on the device."""
    g = _device_generator(gen, device)
    r = torch.randn(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    return (r + r.mT) / 2
