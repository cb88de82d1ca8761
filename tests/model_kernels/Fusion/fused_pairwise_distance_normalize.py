"""Fusion/fused_pairwise_distance_normalize.py: kernel 1 p-normalises each row of x1 and x2
(max(norm, eps_norm)); kernel 2 computes D[i, j] for a BLOCK_J block of x2 rows per program by
direct differences over a BLOCK_D loop, then the p-th root and the eps_distance clamp.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _pw(ax, p, P_KIND: tl.constexpr):
    if P_KIND == 1:
        return ax
    elif P_KIND == 2:
        return ax * ax
    else:
        return tl.where(ax > 0, tl.exp(p * tl.log(ax)), 0.0)


@triton.jit
def _root(s, p, P_KIND: tl.constexpr):
    if P_KIND == 1:
        return s
    elif P_KIND == 2:
        return tl.sqrt(s)
    else:
        return tl.where(s > 0, tl.exp(tl.log(s) / p), 0.0)


@triton.jit
def _normalize_kernel(x_ptr, y_ptr, D, p, eps, P_KIND: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_D)
    m = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=m, other=0.0)
    nrm = _root(tl.sum(tl.where(m, _pw(tl.abs(x), p, P_KIND), 0.0), axis=0), p, P_KIND)
    tl.store(y_ptr + row * D + offs, x / tl.maximum(nrm, eps), mask=m)


@triton.jit
def _dist_kernel(a_ptr, b_ptr, o_ptr, M, D, p, eps, P_KIND: tl.constexpr, BLOCK_J: tl.constexpr,
                 BLOCK_D: tl.constexpr):
    i = tl.program_id(0)
    js = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    jm = js < M
    acc = tl.zeros([BLOCK_J, BLOCK_D], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        ds = d0 + tl.arange(0, BLOCK_D)
        dm = ds < D
        a = tl.load(a_ptr + i * D + ds, mask=dm, other=0.0)
        b = tl.load(b_ptr + js[:, None] * D + ds[None, :], mask=jm[:, None] & dm[None, :], other=0.0)
        acc += tl.where(dm[None, :], _pw(tl.abs(a[None, :] - b), p, P_KIND), 0.0)
    dist = _root(tl.sum(acc, axis=1), p, P_KIND)
    tl.store(o_ptr + i * M + js, tl.maximum(dist, eps), mask=jm)


def _kind(p):
    return 1 if p == 1 else (2 if p == 2 else 0)


def fused_pairwise_distance_normalize(x1, x2, p_norm=2.0, eps_norm=1e-12, eps_distance=1e-06, keepdim=False):
    a = x1.contiguous().float()
    b = x2.contiguous().float()
    N, D = a.shape
    M = b.shape[0]
    an = torch.empty_like(a)
    bn = torch.empty_like(b)
    BD = triton.next_power_of_2(D)
    k = _kind(p_norm)
    _normalize_kernel[(N,)](a, an, D, float(p_norm), float(eps_norm), P_KIND=k, BLOCK_D=BD)
    _normalize_kernel[(M,)](b, bn, D, float(p_norm), float(eps_norm), P_KIND=k, BLOCK_D=BD)
    out = torch.empty((N, M), dtype=torch.float32, device=a.device)
    BJ = 16
    _dist_kernel[(N, triton.cdiv(M, BJ))](an, bn, out, M, D, float(p_norm), float(eps_distance), P_KIND=k,
                                          BLOCK_J=BJ, BLOCK_D=min(64, BD))
    return out.unsqueeze(-1) if keepdim else out
