"""Math/zeta.py: Hurwitz zeta by Euler-Maclaurin summation, float32. The two inputs are broadcast
with torch.broadcast_tensors and made contiguous; each element sums the first 9 terms (q + k)^-x
(as exp(-x ln(q + k))), adds the integral tail (q + 9)^(1-x) / (x - 1), the half term and six
Bernoulli corrections B_2j / (2j)! * x (x + 1) ... (x + 2j - 2) * (q + 9)^(-x-2j+1). x = 1 gives
+inf and x < 1 NaN; q at a pole (0, -1, ...) gives +inf, other q < 0 (outside the documented
domain) NaN. exp(-x ln q) turns the rounding of x ln q into relative error: about 0.3 of the bound
for an outlier x ~ 50 with q < 1. `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _hurwitz_zeta(s, q):
    # sum_{k<9} (q+k)^-s + Euler-Maclaurin tail at a = q + 9
    total = tl.zeros_like(q)
    for k in tl.static_range(9):
        total += tl.exp(-s * tl.log(q + k))
    a = q + 9.0
    a_s = tl.exp(-s * tl.log(a))          # a^-s
    total += a_s * a / (s - 1.0) + 0.5 * a_s
    inv_a = 1.0 / a
    inv_a2 = inv_a * inv_a
    fac = s * a_s * inv_a                  # s * a^(-s-1)
    # B2/2!, B4/4!, ..., B12/12!
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
def _zeta_kernel(x_ptr, q_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask, other=2.0).to(tl.float32)
    q = tl.load(q_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    z = _hurwitz_zeta(s, q)
    z = tl.where((q <= 0.0) & (q == tl.floor(q)), float("inf"), z)
    z = tl.where(s == 1.0, float("inf"), z)
    z = tl.where(s < 1.0, float("nan"), z)
    tl.store(y_ptr + offs, z, mask=mask)


def zeta(input, other, out=None):
    if not torch.is_tensor(input):
        input = torch.tensor(input, dtype=torch.float32, device=other.device)
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=torch.float32, device=input.device)
    x, q = torch.broadcast_tensors(input, other)
    x = x.to(torch.float32).contiguous()
    q = q.to(torch.float32).contiguous()
    y = torch.empty_like(x)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _zeta_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, q, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
