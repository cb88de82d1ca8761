"""Activation/gelu.py variant: a model that uses the tanh approximation for both forms (common
"fast GELU" shortcut). approximate='none' asks for the erf form; the two differ by up to ~5e-4,
far above the 1e-5 tolerance.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(2.0 * inner)
    t = (e - 1.0) / (e + 1.0)
    t = tl.where(inner > 20.0, 1.0, t)
    y = 0.5 * x * (1.0 + t)
    tl.store(y_ptr + offs, y, mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    return y.view(input.shape)
