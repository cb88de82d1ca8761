"""Math/log1p.py variant that computes tl.log(1.0 + x) (the cancellation the description rules
out): the rounding of 1 + x (up to 6e-8 absolute) is the whole error for small x, a relative
error near 1e-3 at |x| ~ 1e-4 and total loss below 6e-8. kbx judges log1p's float32 results by
rtol 1e-5 alone, so its tiny_3 case (randn * 1e-4) fails it; under the public tolerance
(atol 1e-5, --rules kernelbenchx) it passes.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _log1p_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.log(1.0 + x)
    tl.store(y_ptr + offs, y, mask=mask)


def log1p(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _log1p_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
