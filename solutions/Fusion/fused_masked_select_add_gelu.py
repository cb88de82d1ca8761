"""Fusion/fused_masked_select_add_gelu.py: GELU(masked_select(input, mask) + alpha * other) as a
stream compaction with the add and the GELU applied on the way out: the selected values are
written once, already activated (eager's masked_select writes them, then add and gelu each read
and write the [k] vector again: three launches after the selection's own count and scan).

Design: the broadcast input / mask pair is walked flat in row-major order (both addressed through
their own strides after the iteration space is collapsed, so a broadcast mask row or a
non-contiguous input is read in place) in blocks of BLOCK = 4096 elements (8 warps). Launch 1
counts each block's set mask bits (1 byte per element read); launch 2, one program, turns the
block counts into exclusive offsets (tl.cumsum over 1024-block chunks with a running carry); the
host reads the total k once, as eager's masked_select must, to size the result; launch 3 re-reads
each block's mask, ranks the set lanes with an in-block tl.cumsum, loads only the selected input
elements, computes GELU(x + alpha * other) in float32 (other a kernel scalar, or a [1] / [k]
tensor read at the output position) and stores them at offset + rank: increasing addresses per
block, so the stores coalesce. Input and mask are read once each for the selection (plus the
1-byte mask again), and nothing of size k is written twice.
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
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        a = tl.abs(u)
        e = tl.exp(-2.0 * a)
        t = (1.0 - e) / (1.0 + e)
        a2 = a * a
        t = tl.where(a < 0.0625, a * (1.0 - a2 * (0.3333333333333333 - a2 * 0.13333333333333333)), t)
        t = tl.where(u < 0, -t, t)
        return 0.5 * x * (1.0 + t)
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _count_kernel(m_ptr, cnt_ptr, n, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM: tl.constexpr,
                  I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=offs < n,
                other=0)
    tl.store(cnt_ptr + pid, tl.sum((m != 0).to(tl.int32), axis=0))


@triton.jit
def _scan_kernel(cnt_ptr, off_ptr, B, BLOCK: tl.constexpr):
    total = tl.zeros([], tl.int64)
    tl.store(off_ptr, total)
    for c0 in range(0, B, BLOCK):
        i = c0 + tl.arange(0, BLOCK)
        c = tl.load(cnt_ptr + i, mask=i < B, other=0).to(tl.int64)
        tl.store(off_ptr + 1 + i, tl.cumsum(c, axis=0) + total, mask=i < B)
        total += tl.sum(c, axis=0)


@triton.jit
def _select_gelu_kernel(x_ptr, m_ptr, o_ptr, off_ptr, y_ptr, n, other_scalar, alpha, os_, ys,
                        S1, S2, S3, xs0, xs1, xs2, xs3, ms0, ms1, ms2, ms3,
                        OTHER_IS_TENSOR: tl.constexpr, TANH: tl.constexpr, NDIM: tl.constexpr,
                        I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=inb, other=0)
    sel = inb & (m != 0)
    rank = tl.cumsum(sel.to(tl.int32), axis=0) - 1
    pos = tl.load(off_ptr + pid) + rank
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=sel,
                other=0.0).to(tl.float32)
    if OTHER_IS_TENSOR:
        o = tl.load(o_ptr + pos * os_, mask=sel, other=0.0).to(tl.float32)
    else:
        o = other_scalar
    y = _gelu(x + alpha * o, TANH)
    tl.store(y_ptr + pos * ys, y.to(y_ptr.dtype.element_ty), mask=sel)


def fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    other_is_tensor = isinstance(other, torch.Tensor)
    dtype = torch.result_type(input, other)
    x = input.expand(shape)
    m = mask.expand(shape).view(torch.uint8)
    plan = _plan(shape, [x, m])
    if plan is None:
        x, m = x.contiguous(), m.contiguous()
        plan = _plan(shape, [x, m])
    sizes, st, ndim = plan
    n = 1
    for d in shape:
        n *= d
    dev = input.device
    BLOCK = 4096
    nb = triton.cdiv(n, BLOCK)
    span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    k = 0
    if nb:
        cnt = torch.empty(nb, dtype=torch.int32, device=dev)
        offsets = torch.empty(nb + 1, dtype=torch.int64, device=dev)
        _count_kernel[(nb,)](m, cnt, n, sizes[1], sizes[2], sizes[3], *st[1], NDIM=ndim, I64=i64,
                             BLOCK=BLOCK, num_warps=8)
        _scan_kernel[(1,)](cnt, offsets, nb, BLOCK=1024, num_warps=4)
        k = int(offsets[nb])
    if out is not None:
        if out.shape != (k,):
            out.resize_(k)
        y = out
    else:
        y = torch.empty(k, dtype=dtype, device=dev)
    if k:
        o = other.expand(k) if other_is_tensor else y
        _select_gelu_kernel[(nb,)](
            x, m, o, offsets, y, n, 0.0 if other_is_tensor else float(other), float(alpha),
            o.stride(0) if other_is_tensor else 0, y.stride(0), sizes[1], sizes[2], sizes[3],
            *st[0], *st[1], OTHER_IS_TENSOR=other_is_tensor, TANH=approximate == 'tanh',
            NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=8)
    return y
