"""Fusion/fused_gather_masked_fill.py: torch.gather(input, dim, index).masked_fill(mask, value)
in one pass over index's shape: each output element is either `value` (where mask is set, and
then the input is not even read) or the gathered input element, written once (eager's gather
writes its whole result to HBM and masked_fill reads it back and writes it again).

Design: a flat 1-D grid over the output (4096 elements and 8 warps per program from 1M elements
up, 1024 and 4 below). The input is seen through a strided view of index's shape whose stride
along `dim` is 0, so out[p] reads input at view_offset(p) + index[p] * input.stride(dim); the
index, the mask (broadcast to index's shape), that view and the contiguous output are addressed
through their own strides after the iteration space is collapsed (size-1 dims dropped, jointly
contiguous dims merged), so non-contiguous inputs and broadcast masks are read in place with no
copy. The gather load is predicated on the mask: in the perf sweep (bernoulli(0.5) masks, random
rows of a (S, 1024) input) half of the scattered 4-byte reads, the costly part of a gather, are
skipped. Values are copied in the input's dtype (bit-exact); `value` is converted to it first.
"""
# expect: ok
import torch
import triton
import triton.language as tl

def _plan(shape, tensors):
    """Collapse a broadcast iteration space: drop size-1 dims, merge dims that every operand
    walks contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or
    None when more than 4 dims remain (callers then fall back to contiguous copies)."""
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
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous / scalar case.
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
def _gather_fill_kernel(x_ptr, i_ptr, m_ptr, y_ptr, n, value, xsd, S1, S2, S3,
                        xs0, xs1, xs2, xs3, is0, is1, is2, is3, ms0, ms1, ms2, ms3,
                        ys0, ys1, ys2, ys3, NDIM: tl.constexpr, I64: tl.constexpr,
                        BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(i_ptr + _strided(offs, S1, S2, S3, is0, is1, is2, is3, NDIM), mask=mask, other=0)
    fill = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=mask,
                   other=0) != 0
    src = x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM) + idx * xsd
    v = tl.load(src, mask=mask & (fill == 0), other=0)
    out = tl.where(fill, (tl.zeros_like(v) + value).to(v.dtype), v)
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM), out, mask=mask)


def fused_gather_masked_fill(input, dim, index, mask, value, *, sparse_grad=False, out=None):
    if index.dtype != torch.int64:
        raise RuntimeError(f"gather(): Expected dtype int64 for index, got {index.dtype}")
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    nd = max(input.dim(), 1)
    x = input.reshape(1) if input.dim() == 0 else input
    idx = index.reshape(1) if index.dim() == 0 else index
    if idx.dim() != x.dim():
        raise RuntimeError("gather(): Index tensor must have the same number of dimensions as "
                           "input tensor")
    dim = dim % nd
    for d in range(nd):
        if d != dim and idx.shape[d] > x.shape[d]:
            raise RuntimeError(f"gather(): Size does not match at dimension {d}: expected index "
                               f"{tuple(idx.shape)} to be no larger than self {tuple(x.shape)} "
                               f"apart from dimension {dim}")
    y = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    yv = y.reshape(idx.shape)
    n = idx.numel()
    if n:
        strides = list(x.stride())
        xsd = strides[dim]
        strides[dim] = 0
        xv = x.as_strided(idx.shape, strides, x.storage_offset())
        m = mask.expand(idx.shape).view(torch.uint8)
        ops = [xv, idx, m, yv]
        plan = _plan(idx.shape, ops)
        if plan is None:
            idx, m = idx.contiguous(), m.contiguous()
            ops = [xv, idx, m, yv]
            plan = _plan(idx.shape, ops)
        if plan is None:
            raise NotImplementedError("fused_gather_masked_fill: more than 4 non-mergeable dims")
        sizes, st, ndim = plan
        if input.dtype.is_floating_point:
            fill = float(value)
        elif input.dtype == torch.bool:
            fill = int(bool(value))
        else:
            fill = int(value)
        BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
        span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st)
        span = max(span + abs(xsd) * x.shape[dim], x.numel())
        _gather_fill_kernel[(triton.cdiv(n, BLOCK),)](
            x, idx, m, yv, n, fill, xsd, sizes[1], sizes[2], sizes[3], *st[0], *st[1], *st[2],
            *st[3], NDIM=ndim, I64=max(n, span) + BLOCK >= 2**31, BLOCK=BLOCK, num_warps=warps)
    if out is not None:
        return out.copy_(y)
    return y
