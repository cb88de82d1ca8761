"""Math/erf.py variant with the shorter Abramowitz & Stegun formula 7.1.25 (three coefficients,
t = 1 / (1 + 0.47047 |x|)), whose absolute error reaches 2.5e-5: above the bound 1e-5 + 1e-5 |erf|
(at most 2e-5) over a good part of 0.2 < |x| < 2.5, where randn puts most of its draws.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _erf_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    ax = tl.abs(x)
    t = 1.0 / (1.0 + 0.47047 * ax)
    poly = t * (0.3480242 + t * (-0.0958798 + t * 0.7478556))
    y = 1.0 - poly * tl.exp(-ax * ax)
    y = tl.where(x < 0.0, -y, y)
    tl.store(y_ptr + offs, y, mask=mask)


def erf(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _erf_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y
