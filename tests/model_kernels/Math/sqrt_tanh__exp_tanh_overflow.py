"""Math/sqrt_tanh.py variant: tanh is evaluated as (e^{2y} - 1) / (e^{2y} + 1) without a
clamp. e^{2y} overflows float32 once 2 y > 88.7, i.e. for x > ~1967, and inf / inf gives NaN
where tanh(sqrt(x)) is 1. The description defines the result for any float32 input (NaN only
for x < 0), so a careful judge fails it; the public-mirroring inputs stay below 100 (outliers in [0, 40)),
where the formula is fine; kbx's own huge_values_64 (up to 3e38, kbx_only) catches it.

Otherwise the kernel is Math/sqrt_tanh.py: one elementwise float32 kernel: y = sqrt(x) (NaN for x < 0), then
tanh(y) in the overflow-free form sign(y) * (1 - t) / (1 + t) with t = exp(-2 |y|) <= 1, so large
x saturate to 1 and NaN propagates. Reads a contiguous copy; with `out` the result is copied into
it and `out` is returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _sqrt_tanh_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.sqrt(x)
    e = tl.exp(2.0 * y)
    tl.store(y_ptr + offs, (e - 1.0) / (e + 1.0), mask=mask)


def sqrt_tanh(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sqrt_tanh_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
