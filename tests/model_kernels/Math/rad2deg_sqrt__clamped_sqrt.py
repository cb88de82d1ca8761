"""Math/rad2deg_sqrt.py variant: the square root is taken of max(x, 0) ("guard against NaN"),
so negative inputs give 0 instead of NaN. The description says sqrt(x) is NaN where x < 0; the
ramp -1, 0, 1 case shows it, so a careful judge fails it.

Otherwise the kernel is Math/rad2deg_sqrt.py: one elementwise kernel writes both outputs: x * (180 / pi) (the float32
constant 57.29578) and sqrt(x) (NaN for x < 0 from the hardware/libm sqrt), reading a contiguous
copy of the input; returns the two new tensors (degrees, roots).
"""
# expect: incorrect
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _rad2deg_sqrt_kernel(x_ptr, d_ptr, s_ptr, n, factor, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(d_ptr + offs, x * factor, mask=mask)
    tl.store(s_ptr + offs, tl.sqrt(tl.maximum(x, 0.0)), mask=mask)


def rad2deg_sqrt(input):
    x = input.contiguous()
    d = torch.empty_like(x)
    s = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _rad2deg_sqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, d, s, n, 180.0 / math.pi,
                                                            BLOCK_SIZE=BLOCK_SIZE)
    return d.view(input.shape), s.view(input.shape)
