"""Math/rsqrt.py variant that accepts `out` and ignores it: the right values come back in a new
tensor, but `out` is never written, where the description says the result is written into it
and `out` is returned. Upstream's tests never pass out=; kbx's own out= case (compared in
kw['out'], mutated_kwargs) fails it.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.math.rsqrt(x), mask=mask)


def rsqrt(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _rsqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y
