"""Math/sqrt_exp.py variant that "guards" the square root: tl.sqrt(tl.maximum(x, 0.0)), so a
negative input gives exp(0) = 1 instead of NaN. Non-negative inputs and out= are right. The
description says NaN where x < 0; kbx's ramp_3_through_zero case (-1, 0, 1) catches it.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def sqrt_exp_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.sqrt(tl.maximum(x, 0.0))
    tl.store(y_ptr + offs, tl.exp(s), mask=mask)


def sqrt_exp(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        sqrt_exp_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
