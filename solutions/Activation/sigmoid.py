"""Activation/sigmoid.py: the logistic function 1 / (1 + exp(-x)), optionally into `out`.

Design: flat 1-D grid over the elements, BLOCK = 4096 / 8 warps above 1M elements (16 fp32 per
thread as 128-bit vector accesses; 1024 / 4 below so small tensors still spread over the SMs).
Input and output are addressed through their own strides after collapsing jointly contiguous
dims, so non-contiguous views are read (and, in place, written) without a copy; 64-bit offsets
only when the span needs them. Math in float32 registers, rounded once on store.
exp(-x) overflows to inf for x < -88 and the result is then exactly 0, as in torch.
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
def _unary_kernel(x_ptr, y_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                  NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask,
                other=0.0).to(tl.float32)
    y = 1.0 / (1.0 + tl.exp(-x))
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM),
             y.to(y_ptr.dtype.element_ty), mask=mask)


def _apply(x, y):
    """Runs the kernel from x into y (same shape; either may be a strided view)."""
    n = x.numel()
    if n == 0:
        return y
    src, dst = x, y
    plan = _plan(x.shape, [src, dst])
    if plan is None:
        src, dst = x.contiguous(), torch.empty(x.shape, dtype=y.dtype, device=y.device)
        plan = _plan(x.shape, [src, dst])
    sizes, st, ndim = plan
    block, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(t, sizes)) for t in st) + 1
    i64 = max(n, span) + block >= 2**31
    _unary_kernel[(triton.cdiv(n, block),)](src, dst, n, sizes[1], sizes[2], sizes[3], *st[0],
                                            *st[1], NDIM=ndim, I64=i64, BLOCK=block,
                                            num_warps=warps)
    if dst is not y:
        y.copy_(dst)
    return y


def sigmoid(input, out=None):
    if out is not None:
        if out.shape != input.shape:
            out.resize_(input.shape)
        return _apply(input, out)
    return _apply(input, torch.empty(input.shape, dtype=input.dtype, device=input.device))
