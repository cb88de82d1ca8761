"""Math/i0.py: the Abramowitz & Stegun 9.8.1 / 9.8.2 polynomial approximations (Numerical Recipes
bessi0), float32: for |x| < 3.75, I0 = P((x / 3.75)^2) (relative error < 1.6e-7); above,
I0 = e^|x| / sqrt(|x|) * Q(3.75 / |x|) (relative error < 5e-7), overflowing to +inf where
e^|x| does. Input made contiguous; `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _i0_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    ax = tl.abs(x)
    t = x / 3.75
    t = t * t
    small = 1.0 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492 + t * (0.2659732 + t * (
        0.360768e-1 + t * 0.45813e-2)))))
    axl = tl.maximum(ax, 3.75)
    u = 3.75 / axl
    poly = 0.39894228 + u * (0.1328592e-1 + u * (0.225319e-2 + u * (-0.157565e-2 + u * (0.916281e-2 + u * (
        -0.2057706e-1 + u * (0.2635537e-1 + u * (-0.1647633e-1 + u * 0.392377e-2)))))))
    large = tl.exp(axl) / tl.sqrt(axl) * poly
    y = tl.where(ax < 3.75, small, large)
    tl.store(y_ptr + offs, y, mask=mask)


def i0(input_tensor, out=None):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _i0_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
