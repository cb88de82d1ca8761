"""Math/trunc.py variant that truncates by converting to int32 and back (the cast rounds toward
zero), as models often write it: right for every value of modest size, wrong past 2^31 (the cast
saturates or wraps), on +-inf and on NaN, which the description says pass through. Upstream's
tests hold only modest values, so this passes them; kbx's special-value cases fail it.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _trunc_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x.to(tl.int32).to(tl.float32)
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
