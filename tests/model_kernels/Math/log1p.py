"""Math/log1p.py: log1p without a libdevice call, by the classic correction: u = 1 + x (rounded),
log1p(x) = log(u) * x / (u - 1), which cancels the rounding of 1 + x (a few ulps for every x);
where u == 1 (|x| below half an ulp of 1) the result is x itself. -1 gives -inf, x < -1 NaN, +inf
stays +inf. Input made contiguous; `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _log1p_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = 1.0 + x
    d = u - 1.0
    corrected = tl.log(u) * (x / tl.where(d == 0.0, 1.0, d))
    y = tl.where(d == 0.0, x, corrected)
    y = tl.where(u == float("inf"), u, y)
    y = tl.where(x == -1.0, float("-inf"), y)
    y = tl.where(x < -1.0, float("nan"), y)
    tl.store(y_ptr + offs, y, mask=mask)


def log1p(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _log1p_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
