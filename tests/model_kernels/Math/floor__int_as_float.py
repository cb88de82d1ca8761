"""Math/floor.py variant that sends every input through the float kernel: an int64 input is
converted to float32 first and the result is float32, where torch.floor keeps int64 (the public
int64_4 call). The values are right; the dtype is not.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _floor_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.floor(x), mask=mask)


def floor(input, out=None):
    x = input.contiguous().to(torch.float32)
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _floor_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
