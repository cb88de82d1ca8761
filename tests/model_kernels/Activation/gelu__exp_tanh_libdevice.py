"""Activation/gelu.py variant: erf form via tl.math.erf, tanh form via (e^{2u}-1)/(e^{2u}+1)
with a clamp for large u (another legitimate tanh evaluation; float32 throughout).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, USE_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if USE_TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        inner = tl.minimum(tl.maximum(inner, -15.0), 15.0)
        e = tl.exp(2.0 * inner)
        t = (e - 1.0) / (e + 1.0)
        y = 0.5 * x * (1.0 + t)
    else:
        y = x * 0.5 * (1.0 + tl.math.erf(x / 1.4142135623730951))
    tl.store(y_ptr + offs, y, mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 512),)](x, y, n, USE_TANH=approximate == 'tanh', BLOCK_SIZE=512)
    return y.reshape(input.shape)
