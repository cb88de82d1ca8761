"""Optimizer/AdamW.py: fused in-place AdamW step (decoupled weight decay, bias corrections), one
elementwise kernel; non-contiguous views go through contiguous copies that are copied back.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, lr, beta1, beta2, eps, weight_decay,
                  step_size, inv_sqrt_c2, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    p = p * (1.0 - lr * weight_decay)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    denom = tl.sqrt(v) * inv_sqrt_c2 + eps
    p = p - step_size * m / denom
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999,
               eps=1e-08, weight_decay=0.01):
    tensors = [param, grad, exp_avg, exp_avg_sq]
    work = [t if t.is_contiguous() else t.contiguous() for t in tensors]
    n = param.numel()
    c1 = 1.0 - beta1 ** step
    c2 = 1.0 - beta2 ** step
    BLOCK_SIZE = 1024
    _adamw_kernel[(triton.cdiv(n, BLOCK_SIZE),)](work[0], work[1], work[2], work[3], n, lr, beta1, beta2,
                                                 eps, weight_decay, lr / c1, 1.0 / (c2 ** 0.5),
                                                 BLOCK_SIZE=BLOCK_SIZE)
    for orig, w in zip(tensors, work):
        if orig.data_ptr() != w.data_ptr():
            orig.copy_(w)
    return param, exp_avg, exp_avg_sq
