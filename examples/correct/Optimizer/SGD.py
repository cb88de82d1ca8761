"""One SGD step with momentum, weight decay, dampening and Nesterov (KernelBench-X Optimizer/SGD.py).

    g = grad + weight_decay * param
    if momentum > 0:
        buf = momentum * buf + (1 - dampening) * g      (buf = zeros when momentum_buffer is None)
        g = g + momentum * buf if nesterov else buf
    param -= lr * g

A single fused elementwise kernel reads param, grad (and the buffer) once and writes param and the
buffer in place: 5 memory streams per element instead of torch eager's many small kernels. The
variant flags are compile-time constants, so the momentum-free step never touches a buffer and a
fresh buffer is written without being read. Returns (param, buf), or (param, None) when momentum is 0,
like the reference.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_kernel(p_ptr, g_ptr, b_ptr, n_elements, lr, momentum, weight_decay, one_minus_dampening,
                HAS_WEIGHT_DECAY: tl.constexpr, USE_MOMENTUM: tl.constexpr, HAS_BUF: tl.constexpr,
                NESTEROV: tl.constexpr, ACC: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(ACC)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(ACC)
    if HAS_WEIGHT_DECAY:
        g = g + weight_decay * p
    if USE_MOMENTUM:
        if HAS_BUF:
            b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(ACC)
            b = b * momentum + one_minus_dampening * g
        else:
            b = one_minus_dampening * g
        tl.store(b_ptr + offs, b.to(b_ptr.dtype.element_ty), mask=mask)
        if NESTEROV:
            g = g + momentum * b
        else:
            g = b
    p = p - lr * g
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)


_BLOCK = 4096


def sgd_step(param, grad, momentum_buffer=None, lr=0.1, momentum=0.9, weight_decay=0.0,
             dampening=0.0, nesterov=False):
    use_momentum = momentum > 0
    buf = momentum_buffer
    has_buf = buf is not None
    if use_momentum and not has_buf:
        buf = torch.empty_like(param)  # every element is written by the kernel

    # The kernel works on flat contiguous storage; non-contiguous tensors go through a copy.
    p_work = param if param.is_contiguous() else param.contiguous()
    g_work = grad.expand_as(param).contiguous()
    b_work = None
    if use_momentum:
        b_work = buf if buf.is_contiguous() else buf.contiguous()

    n = p_work.numel()
    if n > 0:
        acc = tl.float64 if param.dtype == torch.float64 else tl.float32
        grid = (triton.cdiv(n, _BLOCK),)
        _sgd_kernel[grid](p_work, g_work, b_work if use_momentum else p_work, n,
                          float(lr), float(momentum), float(weight_decay), float(1.0 - dampening),
                          HAS_WEIGHT_DECAY=weight_decay != 0, USE_MOMENTUM=use_momentum,
                          HAS_BUF=has_buf, NESTEROV=bool(nesterov), ACC=acc, BLOCK=_BLOCK,
                          num_warps=8)
    if p_work is not param:
        param.copy_(p_work)
    if use_momentum and b_work is not buf:
        buf.copy_(b_work)
    return (param, buf) if use_momentum else (param, None)
