"""Math/reciprocal.py: one elementwise kernel computing 1.0 / x in float32 (IEEE division, so
1 / +0 = +inf and 1 / -0 = -inf fall out) on the contiguous input. `out` gets the result copied
in and is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _reciprocal_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    tl.store(y_ptr + offs, 1.0 / x, mask=mask)


def reciprocal(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _reciprocal_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
