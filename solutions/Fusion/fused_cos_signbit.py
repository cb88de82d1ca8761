"""Fusion/fused_cos_signbit.py: (cos(x), signbit(cos(x))) from one read of x, both outputs
written in the same pass (eager runs cos, then signbit, reading the cosine back: 13 bytes per
element of traffic against this kernel's 9).

Design: a flat 1-D grid over the output, BLOCK elements per program (4096 with 8 warps on tensors
of 1M elements and more: 16 fp32 per thread as 128-bit loads and stores; 1024 with 4 warps below,
so the small perf sizes still spread over the 132 SMs). Input and output are addressed through
their own strides after the iteration space is collapsed (size-1 dims dropped, jointly contiguous
dims merged), so the contiguous perf tensors compile to plain vector accesses and non-contiguous
views (or a strided `out`) are read and written in place, with no .contiguous() copy. float32 math
in registers; 64-bit offsets only when the tensor needs them.

The cosine is range-reduced before it is evaluated: k = round(x * 2 / pi) and r = x - k * pi / 2
in float64 (one FMA-exact product; the H200 runs float64 at half the float32 rate, and this kernel
is memory-bound), so |r| <= pi / 4 and the float32 cos / sin of r stay accurate even for
|x| ~ 1e4, where a hardware-approximate cosine of x itself would lose several digits; cos r and
sin r are short Taylor polynomials (exact to float32 on |r| <= pi / 4, and much cheaper than
libdevice's cosf and sinf, which would each reduce again); the quadrant k mod 4 picks cos r,
-sin r, -cos r or sin r. The sign bit is read from the result's
bits (so -0.0 counts as negative and NaN keeps its sign), stored as bool.
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
def _cos_signbit_kernel(x_ptr, c_ptr, s_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3,
                        cs0, cs1, cs2, cs3, ss0, ss1, ss2, ss3,
                        NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask,
                other=0.0).to(tl.float32)
    k = tl.floor(x * 0.6366197723675814 + 0.5)
    r = (x.to(tl.float64) - k.to(tl.float64) * 1.5707963267948966).to(tl.float32)
    q = k.to(tl.int32) & 3
    # |r| <= pi / 4: Taylor polynomials (Horner, float32; next terms below 2e-9) instead of
    # libdevice cosf and sinf, which would each redo a range reduction and a slow-path check.
    r2 = r * r
    cr = 1.0 + r2 * (-0.5 + r2 * (4.1666666666666664e-02 + r2 * (-1.3888888888888889e-03 + r2 * (
        2.4801587301587302e-05 + r2 * -2.7557319223985888e-07))))
    sr = r * (1.0 + r2 * (-1.6666666666666666e-01 + r2 * (8.3333333333333332e-03 + r2 * (
        -1.9841269841269841e-04 + r2 * 2.7557319223985893e-06))))
    c = tl.where(q == 0, cr, tl.where(q == 1, -sr, tl.where(q == 2, -cr, sr)))
    sign = c.to(tl.int32, bitcast=True) < 0
    tl.store(c_ptr + _strided(offs, S1, S2, S3, cs0, cs1, cs2, cs3, NDIM),
             c.to(c_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + _strided(offs, S1, S2, S3, ss0, ss1, ss2, ss3, NDIM), sign.to(tl.int1),
             mask=mask)


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

def fused_cos_signbit(input):
    if input.dtype != torch.float32:
        raise TypeError(f"fused_cos_signbit: expected a float32 tensor, got {input.dtype}")
    c = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    s = torch.empty(input.shape, dtype=torch.bool, device=input.device)
    _launch(_cos_signbit_kernel, input, [c, s])
    return c, s
