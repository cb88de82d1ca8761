"""Optimizer/RMSProp.py: fused in-place RMSProp step, strided 1-D access (handles the 1-D
non-contiguous views of the tests through their stride).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(p_ptr, g_ptr, s_ptr, n, sp, sg, ss, lr, alpha, eps, weight_decay,
                    BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs * sp, mask=mask)
    g = tl.load(g_ptr + offs * sg, mask=mask)
    s = tl.load(s_ptr + offs * ss, mask=mask)
    g = g + weight_decay * p
    s = alpha * s + (1.0 - alpha) * g * g
    p = p - lr * g / (tl.sqrt(s) + eps)
    tl.store(p_ptr + offs * sp, p, mask=mask)
    tl.store(s_ptr + offs * ss, s, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    if param.dim() == 1:
        p, g, s = param, grad, square_avg
        strides = (p.stride(0), g.stride(0), s.stride(0))
    else:
        p, g, s = param.contiguous(), grad.contiguous(), square_avg.contiguous()
        strides = (1, 1, 1)
    n = param.numel()
    _rmsprop_kernel[(triton.cdiv(n, 1024),)](p, g, s, n, *strides, lr, alpha, eps, weight_decay,
                                             BLOCK_SIZE=1024)
    if p.data_ptr() != param.data_ptr():
        param.copy_(p)
    if s.data_ptr() != square_avg.data_ptr():
        square_avg.copy_(s)
    return param, square_avg
