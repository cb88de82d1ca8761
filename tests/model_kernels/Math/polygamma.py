"""Math/polygamma.py: order n = 0 is the digamma kernel (reflection below 0.5, recurrence to >= 6,
asymptotic series); n >= 1 uses psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz zeta
summed by Euler-Maclaurin in float32: 9 direct terms (x + k)^-(n+1), each a product of n + 1
factors 1 / (x + k), then the integral tail, the half term and six Bernoulli corrections.
Negative inputs get as many more direct terms as the most negative element needs (read on the host
with x.min()). n is a compile-time constant; the sign and n! are applied in the kernel. Poles
(x = 0, -1, ...) give +-inf / NaN. Input made contiguous; the keyword-only `out` gets the result
copied in and is returned.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _digamma(x):
    PI = 3.141592653589793
    reflect = x < 0.5
    r = x - tl.floor(x + 0.5)
    refl = PI * tl.cos(PI * r) / tl.sin(PI * r)
    z = tl.where(reflect, 1.0 - x, x)
    acc = tl.zeros_like(z)
    for _ in tl.static_range(6):
        small = z < 6.0
        acc += tl.where(small, 1.0 / z, 0.0)
        z = tl.where(small, z + 1.0, z)
    inv = 1.0 / z
    inv2 = inv * inv
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))))
    psi = tl.log(z) - 0.5 * inv - series - acc
    psi = tl.where(reflect, psi - refl, psi)
    psi = tl.where((x <= 0.0) & (x == tl.floor(x)), float("nan"), psi)
    neg_zero = x.to(tl.int32, bitcast=True) < 0
    return tl.where(x == 0.0, tl.where(neg_zero, float("inf"), float("-inf")), psi)


@triton.jit
def _hurwitz_zeta_int(q, n_direct, S: tl.constexpr):
    # zeta(S, q) for an integer order S >= 2: n_direct terms (q + k)^-S as products of 1 / (q + k)
    # (signs right for negative q + k), then Euler-Maclaurin at a = q + n_direct > 0
    s = S * 1.0
    total = tl.zeros_like(q)
    for k in range(n_direct):
        t = 1.0 / (q + k)
        p = t
        for _ in tl.static_range(S - 1):
            p = p * t
        total += p
    a = q + n_direct
    t = 1.0 / a
    a_s = t
    for _ in tl.static_range(S - 1):
        a_s = a_s * t
    total += a_s * a / (s - 1.0) + 0.5 * a_s
    inv_a2 = 1.0 / (a * a)
    fac = s * a_s / a
    total += fac * (1.0 / 12.0)
    fac = fac * (s + 1.0) * (s + 2.0) * inv_a2
    total += fac * (-1.0 / 720.0)
    fac = fac * (s + 3.0) * (s + 4.0) * inv_a2
    total += fac * (1.0 / 30240.0)
    fac = fac * (s + 5.0) * (s + 6.0) * inv_a2
    total += fac * (-1.0 / 1209600.0)
    fac = fac * (s + 7.0) * (s + 8.0) * inv_a2
    total += fac * (1.0 / 47900160.0)
    fac = fac * (s + 9.0) * (s + 10.0) * inv_a2
    total += fac * (-691.0 / 1307674368000.0)
    return total


@triton.jit
def _polygamma_kernel(x_ptr, y_ptr, n_elem, scale, n_direct, ORDER: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elem
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if ORDER == 0:
        y = _digamma(x)
    else:
        y = scale * _hurwitz_zeta_int(x, n_direct, ORDER + 1)
        # poles: (-1)^(n+1) n! zeta(n+1, -m) is infinite
        y = tl.where((x <= 0.0) & (x == tl.floor(x)), scale * float("inf"), y)
    tl.store(y_ptr + offs, y, mask=mask)


def polygamma(n, input, *, out=None):
    n = int(n)
    if n < 0:
        raise ValueError("polygamma(n, x) requires n >= 0")
    x = input.contiguous()
    y = torch.empty_like(x, dtype=torch.float32)
    numel = x.numel()
    scale = float((-1) ** (n + 1) * math.factorial(n))
    # negative arguments: enough direct terms that q + n_direct >= 9 for every element
    n_direct = 9
    if n > 0 and numel > 0:
        lo = float(x.min())
        if lo < 0.0:
            n_direct = 9 + int(math.ceil(-lo))
    if numel > 0:
        BLOCK_SIZE = 1024
        _polygamma_kernel[(triton.cdiv(numel, BLOCK_SIZE),)](x, y, numel, scale, n_direct, ORDER=n,
                                                             BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
