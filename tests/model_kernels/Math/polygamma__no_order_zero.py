"""Math/polygamma.py variant that applies (-1)^(n+1) n! zeta(n + 1, x) to every order, n = 0
included, as if the formula for n >= 1 covered digamma too: for n = 0 the Euler-Maclaurin tail
(x + 9)^(1-s) / (s - 1) divides by zero and every element is -inf instead of psi(x). Every public
call has n >= 1, so this passes under --rules kernelbenchx; kbx's n0_digamma_64 fails it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import math

import torch
import triton
import triton.language as tl


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
