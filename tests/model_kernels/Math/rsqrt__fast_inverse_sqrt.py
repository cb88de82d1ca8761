"""Math/rsqrt.py variant with the "fast inverse square root" bit trick: i = 0x5f3759df - (bits >> 1),
then one Newton step y (1.5 - 0.5 x y^2). One step leaves a relative error up to 1.75e-3 (two
steps would reach 4.7e-6, inside rtol 1e-5). Zero and negative inputs are patched to +inf / NaN.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    i = x.to(tl.int32, bitcast=True)
    i = 0x5F3759DF - (i >> 1)
    y = i.to(tl.float32, bitcast=True)
    y = y * (1.5 - 0.5 * x * y * y)
    y = tl.where(x == 0.0, float("inf"), y)
    y = tl.where(x < 0.0, float("nan"), y)
    tl.store(y_ptr + offs, y, mask=mask)


def rsqrt(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _rsqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
