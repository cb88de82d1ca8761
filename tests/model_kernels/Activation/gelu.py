"""Activation/gelu.py: elementwise GELU, erf and tanh forms, float32 math, flat 1-D grid over a
contiguous copy of the input.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if APPROX_TANH:
        k = 0.7978845608028654
        u = k * (x + 0.044715 * x * x * x)
        # tanh(u) = 2 * sigmoid(2u) - 1
        t = 2.0 / (1.0 + tl.exp(-2.0 * u)) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu(input, approximate='none'):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate}")
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _gelu_kernel[grid](x, y, n, APPROX_TANH=(approximate == 'tanh'), BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
