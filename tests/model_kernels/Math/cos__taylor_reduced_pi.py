"""Math/cos.py variant, "fast polynomial cosine": reduce x to r in [-pi, pi] (r = x - 2 pi
round(x / 2 pi)), then the Taylor series through r^12 / 12! in Horner form. The reduction is fine
for the inputs here, but the truncation error is about r^14 / 14!, which reaches 1e-4 at |r| = pi
and exceeds the float32 tolerance (rtol = atol = 1e-5) for |r| above ~2.85: ~11% of randn * 3
inputs and a few of every plain randn draw. A float32 cosine must be accurate to float32
tolerance over the whole period, so the description's cos(x) forbids it.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def cos_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    TWO_PI: tl.constexpr = 6.283185307179586
    k = tl.floor(x * (1.0 / TWO_PI) + 0.5)
    r = x - k * TWO_PI
    r2 = r * r
    c = 1.0 / 479001600.0
    c = c * r2 - 1.0 / 3628800.0
    c = c * r2 + 1.0 / 40320.0
    c = c * r2 - 1.0 / 720.0
    c = c * r2 + 1.0 / 24.0
    c = c * r2 - 0.5
    c = c * r2 + 1.0
    tl.store(y_ptr + offs, c, mask=mask)


def cos(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        cos_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    return y.view(input_tensor.shape)
