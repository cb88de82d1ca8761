"""Activation/gelu_bf16.py: bfloat16 in/out; loads widen to float32, GELU is evaluated in float32
(erf form through tl.math.erf, tanh form with tanh(u) = 2 sigmoid(2u) - 1, which saturates
cleanly for large |u|) and rounded once to bfloat16 on the store. Input made contiguous.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_bf16_kernel(x_ptr, y_ptr, n, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if APPROX_TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


def gelu_bf16(input, approximate='none'):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _gelu_bf16_kernel[(triton.cdiv(n, 1024),)](x, y, n, APPROX_TANH=approximate == 'tanh',
                                                    BLOCK_SIZE=1024)
    return y.view(input.shape)
