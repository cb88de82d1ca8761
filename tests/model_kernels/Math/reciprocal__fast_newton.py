"""Math/reciprocal.py variant, "fast reciprocal" that avoids the division: initial guess from the
bit trick 0x7EF311C7 - bits(|x|), one Newton-Raphson step y (2 - |x| y), sign restored, zeros
patched to +-inf. One step leaves a relative error up to 2.6e-3 (a second step would get to
6.7e-6), far beyond rtol = 1e-5 for float32; the description asks for 1 / x in float32 (the notes:
"the reciprocal is correctly rounded in float32").
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def reciprocal_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.abs(x)
    i = a.to(tl.int32, bitcast=True)
    i = 0x7EF311C7 - i
    y = i.to(tl.float32, bitcast=True)
    y = y * (2.0 - a * y)
    y = tl.where(x < 0, -y, y)
    y = tl.where(x == 0.0, 1.0 / x, y)  # keep +-inf for +-0
    tl.store(y_ptr + offs, y, mask=mask)


def reciprocal(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        reciprocal_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
