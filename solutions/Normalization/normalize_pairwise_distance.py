"""Normalization/normalize_pairwise_distance.py: p-norm distances of x1 - x2 over the last dim (plus
eps_distance), normalised by their p-norm along dim_norm, in two small kernels that read the
inputs once and never materialise x1 - x2.

Design: (1) distance kernel: the leading dims of x1 and x2 are collapsed into rows (size-1 dims
dropped, jointly contiguous dims merged, strides kept, so non-contiguous inputs are read in
place) and each program reduces a [BLOCK_M rows x BLOCK_D] tile of |x1 - x2|^p (the perf rows are
128 floats: 32 rows per program as 128-bit loads), sweeping D in chunks, then writes
d = (sum)^(1/p) + eps_distance, one float per row (1/128 of the input bytes). (2) normalise
kernel: the distance tensor is read with dim_norm as the tile's column axis (through strides, no
transpose), its p_norm is reduced per row and the row is written back divided by
max(norm, eps_norm). p = 1 and 2 (both norms) are constexpr fast paths, inf is a max, other p use
exp2(p log2 |x|). Eager makes about eight passes (sub writes the full difference, then norm,
add, norm, clamp, divide); this reads x1 and x2 once, float32 accumulation.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


def _plan(shape, tensors):
    """Collapse an iteration space: drop size-1 dims, merge dims that every operand walks
    contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or None when
    more than 4 dims remain."""
    strides = [list(t.expand(shape).stride()) for t in tensors]
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
    strides = [[s[d] for d in dims] for s in strides]
    i = len(sizes) - 1
    while i > 0:
        if all(s[i - 1] == s[i] * sizes[i] for s in strides):
            sizes[i - 1] *= sizes[i]
            del sizes[i]
            for s in strides:
                s[i - 1] = s[i]
                del s[i]
        i -= 1
    if len(sizes) > 4:
        return None
    ndim = max(len(sizes), 1)
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], ndim


@triton.jit
def _strided(offs, S1, S2, S3, s0, s1, s2, s3, NDIM: tl.constexpr):
    # Element offset of flat (row-major) indices `offs` in an operand with strides s0..s3 over
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous case.
    if NDIM == 1:
        return offs * s3
    i3 = offs % S3
    r = offs // S3
    if NDIM == 2:
        return r * s2 + i3 * s3
    i2 = r % S2
    r = r // S2
    if NDIM == 3:
        return r * s1 + i2 * s2 + i3 * s3
    i1 = r % S1
    r = r // S1
    return r * s0 + i1 * s1 + i2 * s2 + i3 * s3


@triton.jit
def _pow_abs(x, p, P: tl.constexpr):
    a = tl.abs(x)
    if P == 1:
        return a
    elif P == 2:
        return a * a
    elif P == 3:
        return a
    else:
        return tl.where(a > 0, tl.exp2(p * tl.log2(a)), 0.0)


@triton.jit
def _combine(acc, v, P: tl.constexpr):
    if P == 3:
        return tl.maximum(acc, v)
    else:
        return acc + v


@triton.jit
def _reduce(acc, P: tl.constexpr):
    if P == 3:
        return tl.max(acc, axis=1)
    else:
        return tl.sum(acc, axis=1)


@triton.jit
def _root(s, p, P: tl.constexpr):
    if P == 1 or P == 3:
        return s
    elif P == 2:
        return tl.sqrt(s)
    else:
        return tl.where(s > 0, tl.exp2(tl.log2(s) / p), 0.0)


@triton.jit
def _distance_kernel(a_ptr, b_ptr, d_ptr, M, D, p, eps, S1, S2, S3, as0, as1, as2, as3,
                     bs0, bs1, bs2, bs3, asd, bsd, NDIM: tl.constexpr, P: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    arow = _strided(rows, S1, S2, S3, as0, as1, as2, as3, NDIM)
    brow = _strided(rows, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM)
    cols = tl.arange(0, BLOCK_D)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    for start in range(0, D, BLOCK_D):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < D)
        a = tl.load(a_ptr + arow[:, None] + c[None, :] * asd, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + brow[:, None] + c[None, :] * bsd, mask=mask, other=0.0).to(tl.float32)
        acc = _combine(acc, _pow_abs(a - b, p, P), P)
    d = _root(_reduce(acc, P), p, P) + eps
    tl.store(d_ptr + rows, d, mask=rmask)


@triton.jit
def _normalize_kernel(d_ptr, y_ptr, M, L, p, eps, S1, S2, S3, ds0, ds1, ds2, ds3,
                      ys0, ys1, ys2, ys3, dsl, ysl, NDIM: tl.constexpr, P: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_L: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    drow = _strided(rows, S1, S2, S3, ds0, ds1, ds2, ds3, NDIM)
    yrow = _strided(rows, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM)
    cols = tl.arange(0, BLOCK_L)
    acc = tl.zeros([BLOCK_M, BLOCK_L], tl.float32)
    for start in range(0, L, BLOCK_L):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < L)
        v = tl.load(d_ptr + drow[:, None] + c[None, :] * dsl, mask=mask, other=0.0)
        acc = _combine(acc, _pow_abs(v, p, P), P)
    inv = 1.0 / tl.maximum(_root(_reduce(acc, P), p, P), eps)
    for start in range(0, L, BLOCK_L):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < L)
        v = tl.load(d_ptr + drow[:, None] + c[None, :] * dsl, mask=mask, other=0.0)
        tl.store(y_ptr + yrow[:, None] + c[None, :] * ysl, (v * inv[:, None]).to(y_ptr.dtype.element_ty),
                 mask=mask)


def _p_code(p):
    p = float(p)
    if p == 1.0:
        return 1
    if p == 2.0:
        return 2
    if math.isinf(p) and p > 0:
        return 3
    if p <= 0 or math.isnan(p):
        raise ValueError(f"normalize_pairwise_distance: only positive norm orders are supported (got {p})")
    return 0


def _row_grid(rows, length):
    block_l = min(triton.next_power_of_2(max(length, 1)), 2048)
    block_m = max(1, min(triton.next_power_of_2(max(rows, 1)), 4096 // block_l))
    return block_m, block_l


def normalize_pairwise_distance(x1, x2, p_distance=2.0, eps_distance=1e-06, keepdim=False, p_norm=2, dim_norm=1,
                                eps_norm=1e-12):
    shape = torch.broadcast_shapes(x1.shape, x2.shape)
    a, b = x1.expand(shape), x2.expand(shape)
    lead = shape[:-1]
    D = shape[-1]
    dtype = torch.result_type(x1, x2)
    d = torch.empty(tuple(lead) + ((1,) if keepdim else ()), dtype=torch.float32, device=x1.device)
    y = torch.empty(d.shape, dtype=dtype, device=x1.device)
    M = d.numel()
    if M == 0:
        return y
    pd, pn = _p_code(p_distance), _p_code(p_norm)
    plan = _plan(lead, [a[..., 0], b[..., 0]])
    if plan is None:
        a, b = a.contiguous(), b.contiguous()
        plan = _plan(lead, [a[..., 0], b[..., 0]])
    sizes, st, ndim = plan
    BLOCK_M, BLOCK_D = _row_grid(M, D)
    _distance_kernel[(triton.cdiv(M, BLOCK_M),)](
        a, b, d, M, D, float(p_distance), float(eps_distance), sizes[1], sizes[2], sizes[3],
        *st[0], *st[1], a.stride(-1), b.stride(-1), NDIM=ndim, P=pd, BLOCK_M=BLOCK_M,
        BLOCK_D=BLOCK_D, num_warps=8 if BLOCK_M * BLOCK_D >= 4096 else 4)
    dv = d.reshape(1) if d.dim() == 0 else d
    yv = y.reshape(1) if y.dim() == 0 else y
    dim = dim_norm % dv.dim()
    dm, ym = dv.movedim(dim, -1), yv.movedim(dim, -1)
    L = dm.shape[-1]
    R = dm.numel() // L
    plan = _plan(dm.shape[:-1], [dm[..., 0], ym[..., 0]])
    if plan is None:
        raise ValueError("normalize_pairwise_distance: too many non-mergeable dims")
    sizes, st, ndim = plan
    BLOCK_M, BLOCK_L = _row_grid(R, L)
    _normalize_kernel[(triton.cdiv(R, BLOCK_M),)](
        dm, ym, R, L, float(p_norm), float(eps_norm), sizes[1], sizes[2], sizes[3], *st[0], *st[1],
        dm.stride(-1), ym.stride(-1), NDIM=ndim, P=pn, BLOCK_M=BLOCK_M, BLOCK_L=BLOCK_L,
        num_warps=8 if BLOCK_M * BLOCK_L >= 4096 else 4)
    return y
