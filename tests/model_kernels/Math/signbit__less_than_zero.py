"""Math/signbit.py variant that computes x < 0 instead of reading the sign bit: -0.0 (and negative
NaNs) give False. The public negative_zeros_4 call is all -0.0, whose sign bits are set.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _signbit_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, x < 0.0, mask=mask)


def signbit(input, out=None):
    x = input.contiguous()
    if x.dtype != torch.float32:
        x = x.to(torch.float32)
    y = torch.empty(x.shape, dtype=torch.bool, device=x.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _signbit_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
