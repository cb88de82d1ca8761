"""Math/gammaln.py: the Numerical Recipes gammln Lanczos series (g = 5, six coefficients) in
float32, ln Gamma(z) = (z + 0.5) ln(z + 5.5) - (z + 5.5) + ln(sqrt(2 pi) ser(z) / z), with the
reflection ln|Gamma(x)| = ln(pi / |sin(pi x)|) - ln Gamma(1 - x) below 0.5 (sin on the reduced
argument x - round(x)). The poles (0, -1, ...) give +inf. Input made contiguous; `out` gets the
result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _lngamma_pos(z):
    # NR gammln, z >= 0.5
    tmp = z + 5.5
    tmp = (z + 0.5) * tl.log(tmp) - tmp
    ser = 1.000000000190015
    ser += 76.18009172947146 / (z + 1.0)
    ser += -86.50532032941677 / (z + 2.0)
    ser += 24.01409824083091 / (z + 3.0)
    ser += -1.231739572450155 / (z + 4.0)
    ser += 0.1208650973866179e-2 / (z + 5.0)
    ser += -0.5395239384953e-5 / (z + 6.0)
    return tmp + tl.log(2.5066282746310005 * ser / z)


@triton.jit
def _gammaln_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    PI = 3.141592653589793
    reflect = x < 0.5
    z = tl.where(reflect, 1.0 - x, x)
    lg = _lngamma_pos(z)
    r = x - tl.floor(x + 0.5)
    s = tl.abs(tl.sin(PI * r))
    refl = tl.log(PI / s) - lg
    y = tl.where(reflect, refl, lg)
    y = tl.where((x <= 0.0) & (x == tl.floor(x)), float("inf"), y)
    y = tl.where(x == float("inf"), float("inf"), y)
    tl.store(y_ptr + offs, y, mask=mask)


def gammaln(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _gammaln_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
