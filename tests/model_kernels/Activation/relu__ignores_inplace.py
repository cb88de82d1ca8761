"""Activation/relu.py variant: `inplace` is accepted and ignored: a new tensor is always
returned and `input` is never written. The description says that with inplace=True the result
is written into `input` and `input` itself is returned; the public ramp_3_inplace case compares
argument 0 after the call, so a careful judge fails it.

Otherwise the kernel is Activation/relu.py: one elementwise kernel, max(x, 0) in float32 on a contiguous copy of
the input. With inplace=True the result is copied back into `input` (whatever its strides) and
`input` itself is returned; otherwise a new tensor is returned and `input` is untouched.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (the public rules compare only the return value, not the argument written in place)
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x < 0, 0.0, x), mask=mask)


def relu(input, inplace=False):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _relu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
