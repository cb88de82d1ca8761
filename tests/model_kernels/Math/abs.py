"""Math/abs.py: one elementwise tl.abs kernel (clears the sign bit, so -0.0 gives +0.0) on the
contiguous float32 input; the result keeps the input's shape. `out` gets the result copied in and
is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _abs_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.abs(x), mask=mask)


def abs(input_tensor, out=None):  # noqa: A001
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _abs_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input_tensor.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
