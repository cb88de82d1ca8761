"""Math/gammaln.py variant with a too-short Stirling series: the argument is shifted up by the
recurrence ln Gamma(x) = ln Gamma(x + 1) - ln x only until it reaches 2 (two masked steps), then
(z - 0.5) ln z - z + 0.5 ln(2 pi) + 1/(12 z) - 1/(360 z^3). The first omitted term, 1/(1260 z^5),
is 2.5e-5 at z = 2, where ln Gamma is near 0 and the bound is 1e-5. Reflection for x < 0.5 as in
gammaln.py.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _lngamma_pos(x):
    z = x
    shift = tl.zeros_like(x)
    for _ in tl.static_range(2):
        low = z < 2.0
        shift += tl.where(low, tl.log(z), 0.0)
        z = tl.where(low, z + 1.0, z)
    iz = 1.0 / z
    iz2 = iz * iz
    st = (z - 0.5) * tl.log(z) - z + 0.9189385332046727 + iz * (1.0 / 12.0 - iz2 * (1.0 / 360.0))
    return st - shift


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
