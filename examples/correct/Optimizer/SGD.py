"""Optimizer/SGD.py: one SGD step (weight decay, momentum with dampening, Nesterov) as one kernel.

Design: a flat 1-D grid over the parameter, BLOCK elements per program (4096 with 8 warps above
1M elements: 16 fp32 per thread as 128-bit vector accesses; 1024 with 4 warps below so small
launches still fill the SMs). Each element reads param, grad and (with momentum) the buffer once
and writes param and the buffer once: 5 x 4 bytes per element, the minimum. Eager runs grad.add,
mul_, add_, add and add_ (five kernels, about 13 x 4 bytes). The buffer is never read when the
caller passes None (it is zero, so buf = (1 - dampening) * g) and grad is never written.
Operands are addressed through their own strides after the iteration space is collapsed (size-1
dims dropped, jointly contiguous dims merged), so non-contiguous views are updated in place with no
copy; contiguous perf tensors compile to plain vector accesses. float32 math in registers.
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
def _sgd_kernel(p_ptr, g_ptr, b_ptr, n, lr, momentum, weight_decay, dampening, S1, S2, S3,
                ps0, ps1, ps2, ps3, gs0, gs1, gs2, gs3, bs0, bs1, bs2, bs3,
                MOMENTUM: tl.constexpr, BUF_IN: tl.constexpr, NESTEROV: tl.constexpr,
                NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    po = _strided(offs, S1, S2, S3, ps0, ps1, ps2, ps3, NDIM)
    p = tl.load(p_ptr + po, mask=mask, other=0.0)
    g = tl.load(g_ptr + _strided(offs, S1, S2, S3, gs0, gs1, gs2, gs3, NDIM), mask=mask, other=0.0)
    g = g + weight_decay * p
    if MOMENTUM:
        bo = _strided(offs, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM)
        if BUF_IN:
            buf = tl.load(b_ptr + bo, mask=mask, other=0.0)
            buf = buf * momentum + (1.0 - dampening) * g
        else:
            buf = (1.0 - dampening) * g
        tl.store(b_ptr + bo, buf, mask=mask)
        if NESTEROV:
            g = g + momentum * buf
        else:
            g = buf
    tl.store(p_ptr + po, p - lr * g, mask=mask)


def sgd_step(param, grad, momentum_buffer=None, lr=0.1, momentum=0.9, weight_decay=0.0, dampening=0.0,
             nesterov=False):
    use_momentum = momentum > 0
    buf_in = momentum_buffer is not None
    if use_momentum and not buf_in:
        momentum_buffer = torch.empty_like(param)
    if not use_momentum:
        momentum_buffer = None
    n = param.numel()
    if n == 0:
        return param, momentum_buffer
    ops = [param, grad, momentum_buffer if use_momentum else param]
    plan = _plan(param.shape, ops)
    if plan is None:
        raise ValueError("sgd_step supports tensors of at most 4 non-mergeable dims")
    sizes, st, ndim = plan
    big = n >= (1 << 20)
    BLOCK, warps = (4096, 8) if big else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(strides, sizes)) for strides in st) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    _sgd_kernel[(triton.cdiv(n, BLOCK),)](
        param, grad, ops[2], n, float(lr), float(momentum), float(weight_decay), float(dampening),
        sizes[1], sizes[2], sizes[3], *st[0], *st[1], *st[2], MOMENTUM=use_momentum,
        BUF_IN=buf_in, NESTEROV=bool(nesterov), NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    return param, momentum_buffer
