"""Optimizer/Adam.py variant: a stand-alone Python class (not a torch.optim.Optimizer subclass)
holding the parameters, the four hyperparameters as attributes and per-parameter state, with a
correct fused Triton step() (L2 decay, bias corrections). The description asks for a
torch.optim.Optimizer whose parameter group stores lr, betas, eps and weight_decay; this object
has no param_groups / state_dict / zero_grad and cannot be used with schedulers, and its repr
lists no parameter group, so the hyperparameters cannot be read back from it.
"""
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
    p = p - (lr / bc1) * m / (tl.sqrt(v) / sqrt_bc2 + eps)
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


class Adam:
    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0):
        self.params = list(params)
        self.lr = lr
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self):
        self.t += 1
        beta1, beta2 = self.betas
        bc1 = 1.0 - beta1 ** self.t
        sqrt_bc2 = math.sqrt(1.0 - beta2 ** self.t)
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            data = p.data.contiguous()
            n = data.numel()
            _adam_kernel[(triton.cdiv(n, 1024),)](data, p.grad.contiguous(), m, v, n, self.lr, beta1, beta2,
                                                  self.eps, self.weight_decay, bc1, sqrt_bc2, BLOCK_SIZE=1024)
            if data.data_ptr() != p.data.data_ptr():
                p.data.copy_(data)

    def zero_grad(self):
        for p in self.params:
            p.grad = None
