"""Optimizer/AdamW.py: one AdamW step (decoupled decay, both moment updates, bias-corrected
update) in one kernel.

Design: a flat 1-D grid over the parameter, BLOCK elements per program (4096 with 8 warps above 1M
elements: 16 fp32 per thread as 128-bit vector accesses; 1024 with 4 warps below). Each element
reads param, grad, exp_avg and exp_avg_sq once and writes param and both moments once (7 x 4 bytes,
the minimum); eager runs mul_, lerp_, mul_, addcmul_, sqrt, div_, add_ and addcdiv_ (eight kernels
and a temporary, about 22 x 4 bytes). The bias corrections are host scalars (lr / c1 and
1 / sqrt(c2) in double, then float32), the moment updates follow the reference's order
(m + (1 - beta1) * (g - m) is lerp_; v * beta2 + (1 - beta2) * g * g is mul_ then addcmul_), and
the update uses the new moments. Operands are addressed through their own strides after the
iteration space is collapsed, so non-contiguous views are updated in place with no copy.
float32 math in registers.
"""
# expect: ok
import math

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
def _adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, decay, beta1, beta2, step_size, inv_sqrt_c2, eps,
                  S1, S2, S3, ps0, ps1, ps2, ps3, gs0, gs1, gs2, gs3, ms0, ms1, ms2, ms3,
                  vs0, vs1, vs2, vs3, NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    po = _strided(offs, S1, S2, S3, ps0, ps1, ps2, ps3, NDIM)
    mo = _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM)
    vo = _strided(offs, S1, S2, S3, vs0, vs1, vs2, vs3, NDIM)
    p = tl.load(p_ptr + po, mask=mask, other=0.0)
    g = tl.load(g_ptr + _strided(offs, S1, S2, S3, gs0, gs1, gs2, gs3, NDIM), mask=mask, other=0.0)
    m = tl.load(m_ptr + mo, mask=mask, other=0.0)
    v = tl.load(v_ptr + vo, mask=mask, other=0.0)
    p = p * decay
    m = m + (1.0 - beta1) * (g - m)
    v = v * beta2 + (1.0 - beta2) * (g * g)
    denom = tl.sqrt(v) * inv_sqrt_c2 + eps
    p = p - step_size * (m / denom)
    tl.store(p_ptr + po, p, mask=mask)
    tl.store(m_ptr + mo, m, mask=mask)
    tl.store(v_ptr + vo, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
               weight_decay=0.01):
    n = param.numel()
    if n == 0:
        return param, exp_avg, exp_avg_sq
    plan = _plan(param.shape, [param, grad, exp_avg, exp_avg_sq])
    if plan is None:
        raise ValueError("adamw_step supports tensors of at most 4 non-mergeable dims")
    sizes, st, ndim = plan
    c1 = 1.0 - beta1 ** step
    c2 = 1.0 - beta2 ** step
    big = n >= (1 << 20)
    BLOCK, warps = (4096, 8) if big else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(strides, sizes)) for strides in st) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    _adamw_kernel[(triton.cdiv(n, BLOCK),)](
        param, grad, exp_avg, exp_avg_sq, n, 1.0 - lr * weight_decay, float(beta1), float(beta2),
        lr / c1, 1.0 / math.sqrt(c2), float(eps), sizes[1], sizes[2], sizes[3],
        *st[0], *st[1], *st[2], *st[3], NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    return param, exp_avg, exp_avg_sq
