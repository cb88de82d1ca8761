"""Math/signbit.py: reads the float32 bits as int32 (tl bitcast) and tests the top bit (negative
as a signed int), so -0.0 and negative NaNs count; stored into a bool tensor. Input made
contiguous; `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _signbit_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    bits = x.to(tl.int32, bitcast=True)
    tl.store(y_ptr + offs, bits < 0, mask=mask)


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
