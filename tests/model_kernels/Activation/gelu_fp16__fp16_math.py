"""Activation/gelu_fp16.py variant, weaker-model style: the polynomial of the tanh form and the
products are evaluated in float16 (x*x*x, the 0.5*x*(1+t) products), erf/exp in float32 because
Triton's math functions need it. The task says compute in float32 and round once; float16
intermediates lose a few ulps (and relative accuracy in the deep negative tail, where 1 + erf
cancels), but the absolute error stays around 1e-3 or below, inside rtol = atol = 5e-3: an
acceptable float16 GELU under the documented contract.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # float16
    if APPROX_TANH:
        x3 = x * x * x
        u = (x + x3 * 0.044715) * 0.7978845608028654
        u = u.to(tl.float16)
        t = (2.0 * tl.sigmoid((2.0 * u).to(tl.float32)) - 1.0).to(tl.float16)
        y = (x * 0.5).to(tl.float16) * (1.0 + t).to(tl.float16)
    else:
        e = tl.math.erf(x.to(tl.float32) * 0.7071067811865476).to(tl.float16)
        y = (x * 0.5).to(tl.float16) * (1.0 + e).to(tl.float16)
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


def gelu_fp16(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, APPROX_TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y.view(input.shape)
