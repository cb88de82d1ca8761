"""Reference for LinearAlgebra/ldl_factor.py: compact LDL^T / LDL^H factorisation with Bunch-Kaufman pivoting."""

import math

import torch


def ldl_factor(A, hermitian=False, out=None):
    # torch.linalg.ldl_factor (LAPACK sytrf/hetrf, lower storage): A = L D L^T (L^H when hermitian).
    return torch.linalg.ldl_factor(A, hermitian=hermitian, out=out)


def _blocks(piv, n):
    """The diagonal blocks encoded by one row of 1-based LAPACK pivots, as (start, size, swap row), or raise."""
    blocks, k = [], 0
    while k < n:
        p = int(piv[k])
        if p > 0:
            if not k + 1 <= p <= n:
                raise ValueError(f"pivot {p} at {k} out of range")
            blocks.append((k, 1, p - 1))
            k += 1
        elif p < 0:
            if k + 1 >= n or int(piv[k + 1]) != p or not k + 2 <= -p <= n:
                raise ValueError(f"malformed 2x2 pivot {p} at {k}")
            blocks.append((k, 2, -p - 1))
            k += 2
        else:
            raise ValueError("zero pivot index")
    return blocks


def _rebuild(LD, piv, hermitian):
    """M = P(1) L(1) ... P(m) L(m) D L(m)^T P(m)^T ... L(1)^T P(1)^T for one [n, n] factor (lower storage)."""
    n = LD.shape[-1]
    tr = (lambda x: x.mH) if hermitian else (lambda x: x.mT)
    blocks = _blocks(piv, n)
    D = torch.zeros_like(LD)
    for k, s, _ in blocks:
        D[k, k] = LD[k, k].real if hermitian else LD[k, k]
        if s == 2:
            D[k + 1, k + 1] = LD[k + 1, k + 1].real if hermitian else LD[k + 1, k + 1]
            D[k + 1, k] = LD[k + 1, k]
            D[k, k + 1] = LD[k + 1, k].conj() if hermitian else LD[k + 1, k]
    M = D
    eye = torch.eye(n, dtype=LD.dtype)
    for k, s, p in reversed(blocks):
        Lk = eye.clone()
        Lk[k + s:, k:k + s] = LD[k + s:, k:k + s]
        M = Lk @ M @ tr(Lk)
        r = k + s - 1  # the row exchanged with p
        perm = torch.arange(n)
        perm[r], perm[p] = p, r
        M = M[perm][:, perm]
    return M


def canonical_ldl(out, args, kwargs):
    """Pivot-free properties of (LD, pivots): the matrix the factors encode, rebuilt in float64 on the CPU
    (A up to rounding), and LD's strictly upper part (zero). Raises on malformed pivot indices."""
    LD, pivots = out
    A = args[0]
    hermitian = bool(kwargs.get("hermitian", args[1] if len(args) > 1 else False)) and A.is_complex()
    n = A.shape[-1]
    if pivots.dtype != torch.int32 or pivots.shape != A.shape[:-1] or LD.shape != A.shape:
        raise ValueError("ldl_factor returns LD [*, n, n] and int32 pivots [*, n]")
    wide = torch.complex128 if LD.is_complex() else torch.float64
    ld = LD.detach().to("cpu", wide).reshape(-1, n, n)
    pv = pivots.to("cpu").reshape(-1, n)
    M = torch.stack([_rebuild(ld[i], pv[i], hermitian) for i in range(ld.shape[0])]) if n else ld
    return M.reshape(A.shape).to(A.device), torch.triu(LD, 1)


def _noncontiguous(x):
    """The same values as a view of every other element of a buffer twice as wide."""
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype, device=x.device)
    wide[..., ::2] = x
    return wide[..., ::2]


def indefinite_matrix(gen, device, n, batch=0, dtype="float32", outlier_p=0.0, outlier_scale=1.0,
                      noncontig=False):
    """A symmetric (real) or Hermitian (complex) indefinite [batch..., n, n] matrix Q diag(w) Q^H.

    Q is random orthogonal / unitary; |w| is uniform in [0.25, 1] with random signs (outliers: |w|
    multiplied by `outlier_scale` with probability `outlier_p`). Made exactly symmetric / Hermitian.
    """
    shape = ([batch] if batch else []) + [n, n]
    tdtype = getattr(torch, dtype)
    q = _random_unitary(gen, shape, tdtype.is_complex)
    w = 0.25 + 0.75 * torch.rand(shape[:-1], generator=gen, dtype=torch.float64)
    if outlier_p > 0:
        hit = torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < outlier_p
        w = torch.where(hit, w * outlier_scale, w)
    w = torch.where(torch.rand(shape[:-1], generator=gen, dtype=torch.float64) < 0.5, -w, w)
    a = (q * w.unsqueeze(-2).to(q.dtype)) @ q.mH
    a = (a + a.mH) / 2
    a = a.to(tdtype).to(device)
    return _noncontiguous(a) if noncontig else a


def _random_unitary(gen, shape, complex_):
    """Q of the QR of a float64 (complex128 with `complex_`) Gaussian matrix of `shape`."""
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if complex_:
        x = torch.complex(x, torch.randn(shape, generator=gen, dtype=torch.float64)) / math.sqrt(2.0)
    return torch.linalg.qr(x)[0]


def saddle_matrix(gen, device, n, batch=0, dtype="float32"):
    """A symmetric (real) or Hermitian (complex) [batch..., n, n] matrix [[0, B], [B^H, 0]], n even:
    every leading diagonal entry is zero, so LDL^T without pivoting divides by zero, while
    Bunch-Kaufman takes 2x2 pivots. B = U diag(s) V^H with s uniform in [0.5, 1]: the eigenvalues
    are +-s, so A is well conditioned."""
    if n % 2:
        raise ValueError("saddle_matrix needs an even n")
    m = n // 2
    shape = ([batch] if batch else []) + [m, m]
    tdtype = getattr(torch, dtype)
    u = _random_unitary(gen, shape, tdtype.is_complex)
    v = _random_unitary(gen, shape, tdtype.is_complex)
    s = 0.5 + 0.5 * torch.rand(shape[:-1], generator=gen, dtype=torch.float64)
    b = (u * s.unsqueeze(-2).to(u.dtype)) @ v.mH
    a = torch.zeros(shape[:-2] + [n, n], dtype=b.dtype)
    a[..., :m, m:] = b
    a[..., m:, :m] = b.mH
    return a.to(tdtype).to(device)


def _device_generator(gen, device):
    """A generator on `device` seeded from the case generator (large perf inputs are drawn there)."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def shifted_perf(gen, device, n, dtype="float32"):
    """Perf input as upstream: R + R^T + n I for a rand R [n, n], drawn on the device."""
    g = _device_generator(gen, device)
    r = torch.rand(n, n, generator=g, device=device, dtype=getattr(torch, dtype))
    a = r + r.mT
    a.diagonal().add_(n)
    return a
