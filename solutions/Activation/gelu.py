"""Activation/gelu.py: elementwise GELU, exact (erf) or tanh form, in one pass over the input.

Design: a flat 1-D grid over the output, BLOCK elements per program (4096 with 8 warps on tensors
of 1M elements and more: 16 fp32 per thread, issued as 128-bit loads and stores; 1024 with 4 warps
below that, so the small perf sizes still spread over the 132 SMs). The input and the output are
addressed through their own strides after the iteration space is collapsed (size-1 dims dropped,
jointly contiguous dims merged), so the contiguous perf tensors compile to plain vector accesses
and a non-contiguous view is read in place, with no .contiguous() copy. Math is float32 in
registers; tanh is written overflow-free as sign(u) * (1 - e) / (1 + e) with e = exp(-2|u|).
64-bit offsets only when the tensor needs them. Eager's F.gelu is itself one fused kernel, so the bar
here is to match it at HBM bandwidth (8 bytes per element), not to beat it by a wide margin.
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
def _tanh(u):
    # tanh without overflow: e = exp(-2|u|) is in (0, 1]; near 0 the cubic series keeps the relative
    # error at float32 level where 1 - e would cancel.
    a = tl.abs(u)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    a2 = a * a
    small = a * (1.0 - a2 * (0.3333333333333333 - a2 * 0.13333333333333333))
    t = tl.where(a < 0.0625, small, t)
    return tl.where(u < 0, -t, t)


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                 TANH: tl.constexpr, NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask,
                other=0.0).to(tl.float32)
    if TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + _tanh(u))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM),
             y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu(input, approximate='none'):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    x = input
    plan = _plan(y.shape, [x, y])
    if plan is None:
        x = x.contiguous()
        plan = _plan(y.shape, [x, y])
    sizes, st, ndim = plan
    BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st) + 1
    _gelu_kernel[(triton.cdiv(n, BLOCK),)](
        x, y, n, sizes[1], sizes[2], sizes[3], *st[0], *st[1], TANH=approximate == 'tanh',
        NDIM=ndim, I64=max(n, span) + BLOCK >= 2**31, BLOCK=BLOCK, num_warps=warps)
    return y
