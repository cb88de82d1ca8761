"""Activation/leaky_relu.py: elementwise leaky ReLU, out of place or in place, in one pass.

Design: a flat 1-D grid over the output, BLOCK elements per program (4096 with 8 warps on tensors
of 1M elements and more: 16 fp32 per thread as 128-bit loads and stores; 1024 with 4 warps below,
so the small perf sizes still spread over the 132 SMs). Input and output are addressed through
their own strides after the iteration space is collapsed (size-1 dims dropped, jointly contiguous
dims merged), so the contiguous perf tensors compile to plain vector accesses and non-contiguous
views (or a strided `out`) are read and written in place, with no .contiguous() copy. float32 math
in registers; 64-bit offsets only when the tensor needs them.
With inplace=True the kernel writes straight back through the input's own strides (a
non-contiguous view is updated where it lies) and returns `input`. Eager's F.leaky_relu is one
kernel too, so the bar is to match it at HBM bandwidth (8 bytes per element).
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
def _leaky_relu_kernel(x_ptr, y_ptr, n, slope, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                       NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask, other=0.0)
    y = tl.where(x > 0, x, x * slope)
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM),
             y.to(y_ptr.dtype.element_ty), mask=mask)


def _launch(kernel, x, outs, *scalars, **meta):
    """Runs an elementwise `kernel(x, *outs, n, *scalars, sizes, strides..., NDIM, I64, BLOCK)`
    over x's shape, every operand addressed through its own strides (no copies unless more than
    4 dims stay after collapsing)."""
    n = x.numel()
    if n == 0:
        return
    plan = _plan(x.shape, [x, *outs])
    if plan is None:
        x = x.contiguous()
        plan = _plan(x.shape, [x, *outs])
    if plan is None:
        tmp = [torch.empty(x.shape, dtype=o.dtype, device=o.device) for o in outs]
        _launch(kernel, x, tmp, *scalars, **meta)
        for o, t in zip(outs, tmp):
            o.copy_(t)
        return
    sizes, st, ndim = plan
    BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st) + 1
    kernel[(triton.cdiv(n, BLOCK),)](
        x, *outs, n, *scalars, sizes[1], sizes[2], sizes[3], *[s for s_ in st for s in s_],
        NDIM=ndim, I64=max(n, span) + BLOCK >= 2**31, BLOCK=BLOCK, num_warps=warps, **meta)


def _out(out, x, dtype=None):
    """The output tensor: `out` (resized to x's shape if needed, as torch's out= does) or a new one."""
    if out is None:
        return torch.empty(x.shape, dtype=dtype or x.dtype, device=x.device)
    if out.shape != x.shape:
        out.resize_(x.shape)
    return out

def leaky_relu(input, negative_slope=0.01, inplace=False):
    y = input if inplace else torch.empty(input.shape, dtype=input.dtype, device=input.device)
    _launch(_leaky_relu_kernel, input, [y], float(negative_slope))
    return y
