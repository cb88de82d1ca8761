"""Math/trunc.py: truncation toward zero as tl.ceil for negative inputs and tl.floor otherwise (so
-0.3 gives -0.0 and +-inf / NaN pass through unchanged), float32. Input made contiguous; `out`
gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _trunc_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x < 0.0, tl.ceil(x), tl.floor(x))
    tl.store(y_ptr + offs, y, mask=mask)


def trunc(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _trunc_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
