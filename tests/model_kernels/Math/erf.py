"""Math/erf.py: Abramowitz & Stegun 7.1.26 in float32, erf(|x|) = 1 - t (a1 + t (a2 + t (a3 + t (a4 +
t a5)))) e^(-x^2) with t = 1 / (1 + 0.3275911 |x|) (absolute error below 1.5e-7), sign restored
for negative x. Input made contiguous.
"""
# expect: ok
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
    t = 1.0 / (1.0 + 0.3275911 * ax)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
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
