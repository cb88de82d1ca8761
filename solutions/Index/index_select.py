"""Index/index_select.py: torch.index_select as one gather kernel over [index entries x slice] tiles.

Design: the input without dimension `dim` (the "rest", one slice per index entry) is collapsed
like an elementwise operand (size-1 dims dropped, jointly contiguous dims merged, strides kept),
so any input layout is read in place. A program owns a [BLOCK_K index entries x BLOCK_R rest
elements] tile of about 4K elements: it loads its BLOCK_K indices once, then gathers
src = idx * stride(dim) + rest_offset(r) and writes out[outer, k, inner] contiguously. For the perf
shape (rows of a [N, 256] matrix, dim 0) that is 16 rows of 256 floats per program, each row a
contiguous 1 KiB read and write as 128-bit vectors, so the kernel runs at copy bandwidth with one
launch and no index preprocessing. 64-bit offsets only when the tensors need them. Works for
any dtype (float32 and int64 here); a 0-d input is treated as 1-D.
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
def _index_select_kernel(x_ptr, idx_ptr, y_ptr, K, R, inner, sdim, S1, S2, S3, s0, s1, s2, s3,
                         NDIM: tl.constexpr, I64: tl.constexpr, BLOCK_K: tl.constexpr,
                         BLOCK_R: tl.constexpr):
    ks = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    rs = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    kmask = ks < K
    rmask = rs < R
    idx = tl.load(idx_ptr + ks, mask=kmask, other=0)
    if I64:
        rs = rs.to(tl.int64)
        ks = ks.to(tl.int64)
    else:
        idx = idx.to(tl.int32)
    src = idx[:, None] * sdim + _strided(rs, S1, S2, S3, s0, s1, s2, s3, NDIM)[None, :]
    outer = rs // inner
    dst = (outer * K * inner + rs % inner)[None, :] + ks[:, None] * inner
    mask = kmask[:, None] & rmask[None, :]
    tl.store(y_ptr + dst, tl.load(x_ptr + src, mask=mask), mask=mask)


def index_select(input, dim, index):
    x = input.reshape(1) if input.dim() == 0 else input
    dim = dim % x.dim()
    K = index.numel()
    shape = list(x.shape)
    shape[dim] = K
    y = torch.empty(shape, dtype=x.dtype, device=x.device)
    if input.dim() == 0:
        y = y.reshape(())
    rest = x.select(dim, 0) if x.shape[dim] > 0 else None
    R = x.numel() // x.shape[dim] if x.shape[dim] > 0 else 0
    if K == 0 or R == 0:
        return y
    idx = index.reshape(-1)
    plan = _plan(rest.shape, [rest])
    if plan is None:
        x = x.contiguous()
        rest = x.select(dim, 0)
        plan = _plan(rest.shape, [rest])
    sizes, st, ndim = plan
    inner = 1
    for s in x.shape[dim + 1:]:
        inner *= s
    BLOCK_R = min(triton.next_power_of_2(R), 1024)
    BLOCK_K = max(1, min(triton.next_power_of_2(K), 4096 // BLOCK_R))
    span = max(abs(s) * (d - 1) for s, d in zip(st[0], sizes)) + abs(x.stride(dim)) * x.shape[dim]
    i64 = max(y.numel(), span) + 4096 >= 2**31
    grid = (triton.cdiv(K, BLOCK_K), triton.cdiv(R, BLOCK_R))
    _index_select_kernel[grid](x, idx, y, K, R, inner, x.stride(dim), sizes[1], sizes[2], sizes[3],
                               *st[0], NDIM=ndim, I64=i64, BLOCK_K=BLOCK_K, BLOCK_R=BLOCK_R,
                               num_warps=8 if BLOCK_K * BLOCK_R >= 4096 else 4)
    return y
