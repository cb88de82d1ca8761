"""Normalization/normalize_pairwise_distance.py: kernel 1 computes each row's p-distance over the
last dim (blocked loop, float32) plus eps_distance; kernel 2 normalises d along dim_norm (moved
last, one program per line) by max(||d||_p_norm, eps_norm).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _powsum(x, p, P_KIND: tl.constexpr):
    ax = tl.abs(x)
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
def _dist_kernel(a_ptr, b_ptr, d_ptr, D, p, eps, P_KIND: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, D, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < D
        a = tl.load(a_ptr + row * D + offs, mask=m, other=0.0)
        b = tl.load(b_ptr + row * D + offs, mask=m, other=0.0)
        acc += tl.where(m, _powsum(a - b, p, P_KIND), 0.0)
    tl.store(d_ptr + row, _root(tl.sum(acc, axis=0), p, P_KIND) + eps)


@triton.jit
def _norm_kernel(d_ptr, y_ptr, L, p, eps, P_KIND: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    m = offs < L
    d = tl.load(d_ptr + row * L + offs, mask=m, other=0.0)
    s = tl.sum(tl.where(m, _powsum(d, p, P_KIND), 0.0), axis=0)
    nrm = tl.maximum(_root(s, p, P_KIND), eps)
    tl.store(y_ptr + row * L + offs, d / nrm, mask=m)


def _kind(p):
    return 1 if p == 1 else (2 if p == 2 else 0)


def normalize_pairwise_distance(x1, x2, p_distance=2.0, eps_distance=1e-06, keepdim=False, p_norm=2,
                                dim_norm=1, eps_norm=1e-12):
    a = x1.contiguous().float()
    b = x2.contiguous().float()
    D = a.shape[-1]
    M = a.numel() // D
    d = torch.empty(M, dtype=torch.float32, device=a.device)
    _dist_kernel[(M,)](a, b, d, D, float(p_distance), float(eps_distance), P_KIND=_kind(p_distance),
                       BLOCK_SIZE=min(1024, triton.next_power_of_2(D)))
    dshape = list(a.shape[:-1]) + ([1] if keepdim else [])
    d = d.reshape(dshape)
    dn = dim_norm % d.dim()
    dt = d.movedim(dn, -1).contiguous()
    L = dt.shape[-1]
    y = torch.empty_like(dt)
    _norm_kernel[(dt.numel() // L,)](dt, y, L, float(p_norm), float(eps_norm), P_KIND=_kind(p_norm),
                                     BLOCK_SIZE=triton.next_power_of_2(L))
    return y.movedim(-1, dn)
