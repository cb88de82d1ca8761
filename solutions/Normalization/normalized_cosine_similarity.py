"""Normalization/normalized_cosine_similarity.py: F.normalize on both inputs, then
F.cosine_similarity, as one row-reduction pass that never materialises the normalised tensors.

Design: the reduced dim becomes the tile's column axis (read through its stride; the other dims
are collapsed into rows and addressed through their strides, so dim=0 and non-contiguous inputs
need no transpose copy). Each program owns [BLOCK_M rows x BLOCK_N columns] (about 4K elements; the
perf rows of 1024 floats are 4 rows per program as 128-bit loads) and sweeps the row once,
accumulating five float32 sums: sum |x1|^p, sum |x2|^p, sum x1 x2, sum x1^2 and sum x2^2. Then
n1 = max(||x1||_p, eps_norm), n2 likewise, ||a|| = sqrt(sum x1^2) / n1, ||b|| likewise, and the result
is (sum x1 x2 / (n1 n2)) / (max(||a||, eps_sim) max(||b||, eps_sim)): the same quantity the
reference forms from a = x1 / n1 and b = x2 / n2. |x|^p is x itself for p = 1, x^2 for p = 2
(constexpr paths) and exp2(p log2 |x|) otherwise. One read of both inputs, one write of the
result: eager makes about ten passes (two normalize calls, each a norm, clamp and divide, then
cosine_similarity's norms, divides, product and sum).
"""
# expect: ok
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
    else:
        return tl.where(a > 0, tl.exp2(p * tl.log2(a)), 0.0)


@triton.jit
def _root(s, p, P: tl.constexpr):
    if P == 1:
        return s
    elif P == 2:
        return tl.sqrt(s)
    else:
        return tl.where(s > 0, tl.exp2(tl.log2(s) / p), 0.0)


@triton.jit
def _ncos_kernel(a_ptr, b_ptr, y_ptr, M, N, p, eps_norm, eps_sim, S1, S2, S3,
                 as0, as1, as2, as3, bs0, bs1, bs2, bs3, asn, bsn, NDIM: tl.constexpr,
                 P: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    arow = _strided(rows, S1, S2, S3, as0, as1, as2, as3, NDIM)
    brow = _strided(rows, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM)
    cols = tl.arange(0, BLOCK_N)
    sa = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    sb = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    sab = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    saa = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    sbb = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < N)
        a = tl.load(a_ptr + arow[:, None] + c[None, :] * asn, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + brow[:, None] + c[None, :] * bsn, mask=mask, other=0.0).to(tl.float32)
        if P != 2:
            sa += _pow_abs(a, p, P)
            sb += _pow_abs(b, p, P)
        sab += a * b
        saa += a * a
        sbb += b * b
    saa = tl.sum(saa, axis=1)
    sbb = tl.sum(sbb, axis=1)
    if P == 2:
        n1 = tl.sqrt(saa)
        n2 = tl.sqrt(sbb)
    else:
        n1 = _root(tl.sum(sa, axis=1), p, P)
        n2 = _root(tl.sum(sb, axis=1), p, P)
    n1 = tl.maximum(n1, eps_norm)
    n2 = tl.maximum(n2, eps_norm)
    na = tl.maximum(tl.sqrt(saa) / n1, eps_sim)
    nb = tl.maximum(tl.sqrt(sbb) / n2, eps_sim)
    y = (tl.sum(sab, axis=1) / (n1 * n2)) / (na * nb)
    tl.store(y_ptr + rows, y.to(y_ptr.dtype.element_ty), mask=rmask)


def normalized_cosine_similarity(x1, x2, dim=1, eps_similarity=1e-08, p_norm=2, eps_norm=1e-12):
    shape = torch.broadcast_shapes(x1.shape, x2.shape)
    a, b = x1.expand(shape), x2.expand(shape)
    dim = dim % len(shape)
    out_shape = list(shape[:dim]) + list(shape[dim + 1:])
    y = torch.empty(out_shape, dtype=torch.result_type(x1, x2), device=x1.device)
    N = shape[dim]
    M = y.numel()
    if M == 0:
        return y
    if N == 0:
        return y.zero_()
    am, bm = a.movedim(dim, -1), b.movedim(dim, -1)
    outer = am.shape[:-1]
    plan = _plan(outer, [am[..., 0], bm[..., 0]])
    if plan is None:
        am, bm = am.contiguous(), bm.contiguous()
        plan = _plan(outer, [am[..., 0], bm[..., 0]])
    sizes, st, ndim = plan
    p = float(p_norm)
    P = 1 if p == 1.0 else (2 if p == 2.0 else 0)
    BLOCK_N = min(triton.next_power_of_2(N), 2048)
    BLOCK_M = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_N))
    _ncos_kernel[(triton.cdiv(M, BLOCK_M),)](
        am, bm, y, M, N, p, float(eps_norm), float(eps_similarity), sizes[1], sizes[2], sizes[3],
        *st[0], *st[1], am.stride(-1), bm.stride(-1), NDIM=ndim, P=P, BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_M * BLOCK_N >= 4096 else 4)
    return y
