"""Optimizer/RMSProp.py: one RMSProp step (optional L2 weight decay, no momentum, not centered) in
one kernel.

Design: a flat 1-D grid over the parameter, BLOCK elements per program (4096 with 8 warps above 1M
elements: 16 fp32 per thread as 128-bit vector accesses; 1024 with 4 warps below). Each element
reads param, grad and square_avg once and writes param and square_avg once (5 x 4 bytes, the
minimum); eager runs add (decay), mul_, addcmul_, sqrt, add_ and addcdiv_ (five or six kernels and
a temporary, about 14 x 4 bytes). The order of operations follows the reference: g = grad + wd *
param (only when wd != 0, a constexpr), v = alpha * v + (1 - alpha) * g * g, then
param -= lr * g / (sqrt(v) + eps) with the updated v. Operands are addressed through their own
strides after the iteration space is collapsed, so non-contiguous views are updated in place with
no copy. float32 math in registers.
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
def _rmsprop_kernel(p_ptr, g_ptr, v_ptr, n, lr, alpha, eps, weight_decay, S1, S2, S3,
                    ps0, ps1, ps2, ps3, gs0, gs1, gs2, gs3, vs0, vs1, vs2, vs3,
                    DECAY: tl.constexpr, NDIM: tl.constexpr, I64: tl.constexpr,
                    BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    po = _strided(offs, S1, S2, S3, ps0, ps1, ps2, ps3, NDIM)
    vo = _strided(offs, S1, S2, S3, vs0, vs1, vs2, vs3, NDIM)
    p = tl.load(p_ptr + po, mask=mask, other=0.0)
    g = tl.load(g_ptr + _strided(offs, S1, S2, S3, gs0, gs1, gs2, gs3, NDIM), mask=mask, other=0.0)
    v = tl.load(v_ptr + vo, mask=mask, other=0.0)
    if DECAY:
        g = g + weight_decay * p
    v = alpha * v + (1.0 - alpha) * (g * g)
    p = p - lr * (g / (tl.sqrt(v) + eps))
    tl.store(p_ptr + po, p, mask=mask)
    tl.store(v_ptr + vo, v, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    n = param.numel()
    if n == 0:
        return param, square_avg
    plan = _plan(param.shape, [param, grad, square_avg])
    if plan is None:
        raise ValueError("rmsprop_step supports tensors of at most 4 non-mergeable dims")
    sizes, st, ndim = plan
    big = n >= (1 << 20)
    BLOCK, warps = (4096, 8) if big else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(strides, sizes)) for strides in st) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    _rmsprop_kernel[(triton.cdiv(n, BLOCK),)](
        param, grad, square_avg, n, float(lr), float(alpha), float(eps), float(weight_decay),
        sizes[1], sizes[2], sizes[3], *st[0], *st[1], *st[2], DECAY=weight_decay != 0,
        NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    return param, square_avg
