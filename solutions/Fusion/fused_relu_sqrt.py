"""Fusion/fused_relu_sqrt.py: sqrt(relu(x)) in one read and one write (eager: relu then sqrt, two
kernels and an intermediate tensor; for int64 inputs also a separate float32 conversion kernel).

Design: flat 1-D grid, BLOCK = 4096 / 8 warps above 1M elements (1024 / 4 below), 128-bit vector
loads on the contiguous perf vectors. Input and output are both addressed through strides after
collapsing dims, so inplace=True writes straight back into a non-contiguous `input`, `out=` is
written directly when it has the result's shape and dtype, and non-contiguous inputs are read in
place. int64 inputs are converted to float32 in registers (the conversion is fused too).
relu is a select, not a max, so NaN propagates like torch.relu (fmax would turn NaN into 0).
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
def _relu_sqrt_kernel(x_ptr, y_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                      NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask, other=0)
    x = x.to(y_ptr.dtype.element_ty)
    y = tl.sqrt(tl.where(x < 0, 0.0, x))
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM), y, mask=mask)


def _launch_params(n, sizes, strides):
    big = n >= (1 << 20)
    block, warps = (4096, 8) if big else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(st, sizes)) for st in strides) + 1
    return block, warps, max(n, span) + block >= 2**31


def fused_relu_sqrt(input, inplace=False, out=None):
    is_float = input.dtype in (torch.float32, torch.float64)
    dtype = input.dtype if is_float else torch.float32
    if inplace and is_float:
        y = input
    elif out is not None and not inplace and out.shape == input.shape and out.dtype == dtype:
        y = out
    else:
        y = torch.empty(input.shape, dtype=dtype, device=input.device)
    n = input.numel()
    if n:
        src = input
        plan = _plan(input.shape, [src, y])
        if plan is None:
            src = input.contiguous()
            tmp = y if y.is_contiguous() else torch.empty_like(y, memory_format=torch.contiguous_format)
            plan = _plan(input.shape, [src, tmp])
        else:
            tmp = y
        sizes, st, ndim = plan
        block, warps, i64 = _launch_params(n, sizes, st)
        _relu_sqrt_kernel[(triton.cdiv(n, block),)](src, tmp, n, sizes[1], sizes[2], sizes[3],
                                                    *st[0], *st[1], NDIM=ndim, I64=i64,
                                                    BLOCK=block, num_warps=warps)
        if tmp is not y:
            y.copy_(tmp)
    if out is not None and y is not out:
        return out.copy_(y)
    return y
