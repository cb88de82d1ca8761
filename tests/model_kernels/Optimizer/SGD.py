"""Optimizer/SGD.py: one elementwise Triton kernel per step in float32: g = grad + weight_decay *
param; with momentum the buffer (allocated as zeros when None) becomes momentum * buf +
(1 - dampening) * g and g is replaced by g + momentum * buf' (nesterov) or buf'; then
param -= lr * g. param and the buffer are updated in place (non-contiguous ones through
contiguous copies copied back); returns (param, buf), buf None without momentum.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_kernel(p_ptr, g_ptr, b_ptr, n, lr, momentum, weight_decay, dampening,
                HAS_MOM: tl.constexpr, NESTEROV: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    g = g + weight_decay * p
    if HAS_MOM:
        b = tl.load(b_ptr + offs, mask=mask)
        b = momentum * b + (1.0 - dampening) * g
        tl.store(b_ptr + offs, b, mask=mask)
        if NESTEROV:
            g = g + momentum * b
        else:
            g = b
    p = p - lr * g
    tl.store(p_ptr + offs, p, mask=mask)


def sgd_step(param, grad, momentum_buffer=None, lr=0.1, momentum=0.9, weight_decay=0.0,
             dampening=0.0, nesterov=False):
    has_mom = momentum > 0
    if has_mom and momentum_buffer is None:
        momentum_buffer = torch.zeros_like(param)
    if not has_mom:
        momentum_buffer = None
    p = param if param.is_contiguous() else param.contiguous()
    g = grad.contiguous()
    b = None
    if has_mom:
        b = momentum_buffer if momentum_buffer.is_contiguous() else momentum_buffer.contiguous()
    n = p.numel()
    if n > 0:
        BLOCK = 1024
        _sgd_kernel[(triton.cdiv(n, BLOCK),)](
            p, g, b if b is not None else p, n, lr, momentum, weight_decay, dampening,
            HAS_MOM=has_mom, NESTEROV=bool(nesterov), BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if b is not None and b is not momentum_buffer:
        momentum_buffer.copy_(b)
    return param, momentum_buffer
