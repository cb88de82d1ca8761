"""Math/cos.py: one elementwise kernel computing tl.cos in float32 (the hardware/libm cosine with
its own argument reduction) on the contiguous input; the result keeps the input's shape.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.cos(x), mask=mask)


def cos(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _cos_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input_tensor.shape)
