"""Index/expand_where.py: torch.where(cond, input.expand(target_sizes), other) in one pass that reads
only the operand each element selects.

Design: a flat 1-D grid over the broadcast output, BLOCK elements per program (4096 with 8 warps
above 1M elements: 16 fp32 per thread as 128-bit vectors; 1024 with 4 warps below). The expanded
input, cond and other are addressed through their own (broadcast, stride-0) strides after the
iteration space is collapsed (size-1 dims dropped, jointly contiguous dims merged): the [1, N] row
and the [B, 1] flags are never materialised, and a non-contiguous `other` is read in place. The
flag is loaded first and the two value loads are masked by it, so `other` is only read on rows
whose flag is false (with the perf's Bernoulli(0.5) flags, half of `other`'s bytes) and the input
row, reused by every row, stays in L2. Eager's where reads all three operands in full.
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
def _expand_where_kernel(c_ptr, x_ptr, o_ptr, y_ptr, n, S1, S2, S3, cs0, cs1, cs2, cs3,
                         xs0, xs1, xs2, xs3, os0, os1, os2, os3, NDIM: tl.constexpr,
                         I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(c_ptr + _strided(offs, S1, S2, S3, cs0, cs1, cs2, cs3, NDIM), mask=mask, other=0)
    c = c != 0
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask & c,
                other=0.0)
    o = tl.load(o_ptr + _strided(offs, S1, S2, S3, os0, os1, os2, os3, NDIM), mask=mask & ~c,
                other=0.0)
    y = tl.where(c, x.to(y_ptr.dtype.element_ty), o.to(y_ptr.dtype.element_ty))
    tl.store(y_ptr + offs, y, mask=mask)


def expand_where(input, target_sizes, cond, other):
    ex = input.expand(*target_sizes)
    other_t = other if isinstance(other, torch.Tensor) else torch.tensor(other, device=input.device)
    shape = torch.broadcast_shapes(cond.shape, ex.shape, other_t.shape)
    dtype = torch.result_type(ex, other)
    y = torch.empty(shape, dtype=dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    c = cond.view(torch.uint8) if cond.dtype == torch.bool else cond
    ops = [c, ex, other_t]
    plan = _plan(shape, ops)
    if plan is None:
        ops = [t.expand(shape).contiguous() for t in ops]
        plan = _plan(shape, ops)
    sizes, st, ndim = plan
    big = n >= (1 << 20)
    BLOCK, warps = (4096, 8) if big else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(strides, sizes)) for strides in st) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    _expand_where_kernel[(triton.cdiv(n, BLOCK),)](
        ops[0], ops[1], ops[2], y, n, sizes[1], sizes[2], sizes[3], *st[0], *st[1], *st[2],
        NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    return y
