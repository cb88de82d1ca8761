"""Math/logit.py variant: eps only clamps from below (x = max(x, eps), "to avoid log(0)"), not to
[eps, 1 - eps] as the description says. Inputs at or above 1 - eps are not pulled in, so 1 still
gives +inf and outliers above 1 give NaN where torch returns logit(1 - eps) ~ 13.8; a careful
judge fails it.

Otherwise the kernel is Math/logit.py: one elementwise float32 kernel: with eps the input is clamped to
[eps, 1 - eps] (both bounds in float32, 1 - eps formed in the kernel from the float32 eps, as
torch does), then log(p / (1 - p)); without eps the input is used as is, so 0 -> -inf,
1 -> +inf and values outside [0, 1] give NaN from the log of a negative. `out` gets the result
copied in and is returned.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _logit_kernel(x_ptr, y_ptr, n, eps, HAS_EPS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5).to(tl.float32)
    if HAS_EPS:
        lo = eps
        x = tl.where(x < lo, lo, x)
    tl.store(y_ptr + offs, tl.log(x / (1.0 - x)), mask=mask)


def logit(input, eps=None, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _logit_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            x, y, n, float(eps) if eps is not None else 0.0, HAS_EPS=eps is not None,
            BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
