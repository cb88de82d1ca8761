"""Activation/tanh.py variant: tanh as (e^{2x} - 1) / (e^{2x} + 1) with no clamp. For
x > ~44.4, e^{2x} overflows float32 and inf / inf gives NaN where tanh is 1 (for x < -44 it is
fine: (0 - 1) / (0 + 1)). The description defines tanh for every float32 input; a careful judge
fails it. The public-mirroring inputs stay below |x| ~ 44 (randn std <= 3, outliers x10 of randn) except
with tiny probability; kbx's own huge_ramp_401 (-100 to 100, kbx_only) catches it.

Otherwise the kernel is Activation/tanh.py: one elementwise float32 kernel in the overflow-free form
sign(x) * (1 - t) / (1 + t) with t = exp(-2 |x|) <= 1 (saturates to +-1, never inf / inf).
Runs on a contiguous copy (empty inputs launch nothing); with `out_tensor` the result is copied
into it and `out_tensor` is returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(2.0 * x)
    tl.store(y_ptr + offs, (e - 1.0) / (e + 1.0), mask=mask)


def tanh(input_tensor, out_tensor=None):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _tanh_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input_tensor.shape)
    if out_tensor is not None:
        out_tensor.copy_(y)
        return out_tensor
    return y
