"""Math/floor.py: floating inputs go through one tl.floor kernel (float32 math, stored in the
input's dtype); integer inputs are already integral and come back as a copy of the same dtype.
Input made contiguous; `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _floor_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.floor(x.to(tl.float32))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def floor(input, out=None):
    if not input.is_floating_point():
        y = input.clone()
    else:
        x = input.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            BLOCK_SIZE = 1024
            _floor_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
