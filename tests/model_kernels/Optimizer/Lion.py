"""Optimizer/Lion.py: one elementwise Triton kernel does the whole step in float32: it loads
param, grad and exp_avg, forms u = beta1 * m + (1 - beta1) * g from the old momentum, scales
param by (1 - lr * weight_decay) when weight_decay != 0, subtracts lr * sign(u) (sign(0) = 0),
and stores param and m' = beta2 * m + (1 - beta2) * g. Non-contiguous 1-D/N-D views are handled
by running on contiguous copies and copying the results back into the caller's tensors, so the
updates land in place; the same tensors are returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _lion_kernel(p_ptr, g_ptr, m_ptr, n, lr, beta1, beta2, decay_factor,
                 HAS_WD: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    u = beta1 * m + (1.0 - beta1) * g
    s = tl.where(u > 0, 1.0, tl.where(u < 0, -1.0, 0.0))
    if HAS_WD:
        p = p * decay_factor
    p = p - lr * s
    m = beta2 * m + (1.0 - beta2) * g
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)


def lion_step(param, grad, exp_avg, lr=0.0001, beta1=0.9, beta2=0.99, weight_decay=0.0):
    p = param if param.is_contiguous() else param.contiguous()
    m = exp_avg if exp_avg.is_contiguous() else exp_avg.contiguous()
    g = grad.contiguous()
    n = p.numel()
    if n > 0:
        BLOCK = 1024
        _lion_kernel[(triton.cdiv(n, BLOCK),)](
            p, g, m, n, lr, beta1, beta2, 1.0 - lr * weight_decay,
            HAS_WD=weight_decay != 0, BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if m is not exp_avg:
        exp_avg.copy_(m)
    return param, exp_avg
