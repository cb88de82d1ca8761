"""Math/sqrt_exp.py: one elementwise kernel, tl.exp(tl.sqrt(x)) in float32 (sqrt of a negative
is NaN and exp keeps it; sqrt(0) = 0 gives 1). Empty inputs launch nothing. `out` gets the result
copied in and is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sqrt_exp_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.exp(tl.sqrt(x)), mask=mask)


def sqrt_exp(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sqrt_exp_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
