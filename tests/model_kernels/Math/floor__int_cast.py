"""Math/floor.py variant that floors through int32: truncate by the cast, then step down by one
where the truncation went up (negative non-integers). Right for every value of modest size; wrong
past 2^31, on +-inf and on NaN, which the description says pass through. Integer inputs are
copied, as they should be. Upstream's tests hold only modest values, so this passes them; kbx's
special-value cases fail it.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _floor_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = x.to(tl.int32).to(tl.float32)
    y = tl.where(t > x, t - 1.0, t)
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
