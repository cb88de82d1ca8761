"""Math/exp_sqrt.py variant: `out` is ignored: the result is returned in a new tensor and
`out` keeps its old contents. The description says the result is written into `out` and `out`
is returned (and that out's value after the call is compared), so a careful judge fails it on
the randn_3_out case.

Otherwise the kernel is Math/exp_sqrt.py: one elementwise kernel computing sqrt(exp(x)) as exp(x / 2) in float32 (the
same value without the intermediate overflow of exp(x) above x ~ 88), on a contiguous copy of
the input. With `out` the result is copied into it and `out` is returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own out= case catches it)
import torch
import triton
import triton.language as tl


@triton.jit
def _exp_sqrt_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.exp(x * 0.5), mask=mask)


def exp_sqrt(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _exp_sqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
