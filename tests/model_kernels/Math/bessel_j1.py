"""Math/bessel_j1.py: the Numerical Recipes bessj1 approximation, float32: for |x| < 8 a ratio of
polynomials in x^2 (x * P(x^2) / Q(x^2)); for |x| >= 8 the asymptotic form
sqrt(2 / (pi |x|)) (cos(xx) P1(64/x^2) - (8/|x|) sin(xx) Q1(64/x^2)) with xx = |x| - 3 pi / 4, odd
in x. Input made contiguous; `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bessel_j1_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    ax = tl.abs(x)

    # |x| < 8: rational approximation
    y = x * x
    num = x * (72362614232.0 + y * (-7895059235.0 + y * (242396853.1 + y * (-2972611.439 + y * (
        15704.48260 + y * (-30.16036606))))))
    den = 144725228442.0 + y * (2300535178.0 + y * (18583304.74 + y * (99447.43394 + y * (
        376.9991397 + y * 1.0))))
    small = num / den

    # |x| >= 8: asymptotic form
    axs = tl.maximum(ax, 8.0)
    z = 8.0 / axs
    y2 = z * z
    xx = axs - 2.356194491
    p1 = 1.0 + y2 * (0.183105e-2 + y2 * (-0.3516396496e-4 + y2 * (0.2457520174e-5 + y2 * (-0.240337019e-6))))
    q1 = 0.04687499995 + y2 * (-0.2002690873e-3 + y2 * (0.8449199096e-5 + y2 * (-0.88228987e-6 + y2 * 0.105787412e-6)))
    large = tl.sqrt(0.636619772 / axs) * (tl.cos(xx) * p1 - z * tl.sin(xx) * q1)
    large = tl.where(x < 0.0, -large, large)

    out = tl.where(ax < 8.0, small, large)
    tl.store(y_ptr + offs, out, mask=mask)


def bessel_j1(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _bessel_j1_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
