"""Activation/gelu_bf16.py variant: float32 math throughout, but tanh written by hand as
(e^{2u} - 1) / (e^{2u} + 1) without a clamp. For x >= ~10.1 the tanh argument u passes 44.4,
e^{2u} overflows float32 to inf, and inf / inf gives NaN, so gelu_bf16(x, 'tanh') returns NaN
where the answer is x (for very negative x, e^{2u} -> 0 and t = -1 is fine). The erf form is
right. The description admits any bfloat16 input, and kbx's wide_ramp_241_tanh (-12 .. 12) and
tanh outlier cases catch it.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, USE_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if USE_TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        e = tl.exp(2.0 * inner)
        t = (e - 1.0) / (e + 1.0)
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x / 1.4142135623730951))
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


def gelu_bf16(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, USE_TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y.view(input.shape)
