"""Math/airy_ai.py variant that switches to the asymptotic expansions too early and with too few
terms: the series is used for |x| <= 3 only, and beyond it the expansions keep u_0 .. u_2 (P = 1 -
u_2/z^2, Q = u_1/z on the oscillating side). At x = -3 (z = 3.46) the first omitted term u_3/z^3
is 9e-4 of an amplitude near 0.4, so the oscillating side from -3 to about -6 is off by up to
~1e-4 (10x the bound); the decaying side stays within atol.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _airy_ai_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)

    # --- Maclaurin series (float64), used for |x| <= 3 ---
    xd = tl.minimum(tl.maximum(x, -3.0), 3.0).to(tl.float64)
    x3 = xd * xd * xd
    tf = tl.full(xd.shape, 1.0, tl.float64)
    tg = xd
    f = tf
    g = tg
    for k in tl.static_range(40):
        tf = tf * x3 / ((3 * k + 2) * (3 * k + 3))
        tg = tg * x3 / ((3 * k + 3) * (3 * k + 4))
        f += tf
        g += tg
    series = (0.35502805388781723926 * f - 0.25881940379280679840 * g).to(tl.float32)

    # --- asymptotic expansions (float32), |x| > 3 ---
    ax = tl.maximum(tl.abs(x), 3.0)
    sq = tl.sqrt(ax)
    z = 0.6666666666666666 * ax * sq
    iz = 1.0 / z
    # sum (-1)^k u_k z^-k  (decaying side)
    u = 1.0 + iz * (-0.06944444444444445 + iz * 0.037133487654320986)
    qrt = tl.sqrt(sq)  # x^(1/4)
    pos = tl.exp(-z) * u / (3.5449077018110318 * qrt)
    # oscillating side: P = sum (-1)^k u_2k z^-2k, Q = sum (-1)^k u_(2k+1) z^-(2k+1)
    iz2 = iz * iz
    P = 1.0 - 0.037133487654320986 * iz2
    Q = 0.06944444444444445 * iz
    phase = z + 0.7853981633974483
    neg = (tl.sin(phase) * P - tl.cos(phase) * Q) / (1.7724538509055159 * qrt)

    y = tl.where(x > 3.0, pos, tl.where(x < -3.0, neg, series))
    y = tl.where(x != x, x, y)  # NaN passes through
    tl.store(y_ptr + offs, y, mask=mask)


def airy_ai(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 256
        _airy_ai_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
