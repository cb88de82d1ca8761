"""Activation/sigmoid.py variant: `out` is ignored: a new tensor is returned and `out` keeps its
old contents. The description says `out` receives the result and is returned; a careful judge
fails it. The public cases never pass `out`; kbx's own random_standard_1024x1024_0_out does.

Otherwise the kernel is Activation/sigmoid.py: one elementwise float32 kernel in the overflow-free form: with
t = exp(-|x|) <= 1, sigmoid is 1 / (1 + t) for x >= 0 and t / (1 + t) for x < 0 (no
cancellation in the negative tail). Runs on a contiguous copy; with `out` the result is copied
into it and `out` is returned.
"""
# expect-kernelbenchx: ok
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _sigmoid_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.exp(-tl.abs(x))
    r = 1.0 / (1.0 + t)
    tl.store(y_ptr + offs, tl.where(x >= 0, r, t * r), mask=mask)


def sigmoid(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sigmoid_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
