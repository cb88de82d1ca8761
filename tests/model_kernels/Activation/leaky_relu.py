"""Activation/leaky_relu.py: one elementwise kernel, x if x >= 0 else negative_slope * x, in
float32 on a contiguous copy of the input. With inplace=True the result is copied back into
`input` through its own strides (a non-contiguous view is rewritten in place) and `input` is
returned; otherwise a new tensor is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, n, slope, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope), mask=mask)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    x = input if (inplace and input.is_contiguous()) else input.contiguous()
    y = x if inplace else torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _leaky_relu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, float(negative_slope),
                                                          BLOCK_SIZE=BLOCK_SIZE)
    if inplace:
        if y.data_ptr() != input.data_ptr():
            input.copy_(y)
        return input
    return y.view(input.shape)
