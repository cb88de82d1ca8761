"""Optimizer/Adam.py variant: the Triton step() leaves out the bias corrections, updating
p -= lr * m / (sqrt(v) + eps) with the raw moments, instead of
p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps) as the description states. Early
steps come out far too small (step 1 by a factor of ~(1 - beta1) / sqrt(1 - beta2) = 3.2 with
the defaults). Construction and the stored hyperparameters are right; kbx calls step() and
compares the parameters with torch.optim.Adam's, so it fails here; the public harness compares
only the hyperparameters and passes it.
"""
# expect-kernelbenchx: ok
# expect: incorrect
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, lr, beta1, beta2, eps, weight_decay,
                 bc1, sqrt_bc2, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    g = g + weight_decay * p
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    denom = tl.sqrt(v) + eps
    p = p - lr * m / denom
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


class _TritonAdam(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid betas: {betas}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("Adam does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                state["step"] += 1
                t = state["step"]
                bc1 = 1.0 - beta1 ** t
                sqrt_bc2 = math.sqrt(1.0 - beta2 ** t)
                data = p.data if p.is_contiguous() else p.data.contiguous()
                grad = p.grad.contiguous()
                n = data.numel()
                BLOCK_SIZE = 1024
                _adam_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
                    data, grad, state["exp_avg"], state["exp_avg_sq"], n, lr, beta1, beta2, eps, wd,
                    bc1, sqrt_bc2, BLOCK_SIZE=BLOCK_SIZE)
                if data.data_ptr() != p.data.data_ptr():
                    p.data.copy_(data)
        return loss


def Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0):
    return _TritonAdam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
