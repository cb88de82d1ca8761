"""Math/zeta.py variant with a too-short Euler-Maclaurin expansion: three direct terms, then the
integral tail, the half term and only the first Bernoulli correction (B2). The omitted B4 term,
x (x + 1) (x + 2) / 720 * (q + 3)^(-x-3), is about 6e-5 for x = 1.5, q = 0.5 (zeta about 3.9, bound
4.9e-5), so small orders with small q fail; large orders pass.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _hurwitz_zeta(s, q):
    # sum_{k<3} (q+k)^-s + Euler-Maclaurin tail at a = q + 3
    total = tl.zeros_like(q)
    for k in tl.static_range(3):
        total += tl.exp(-s * tl.log(q + k))
    a = q + 3.0
    a_s = tl.exp(-s * tl.log(a))          # a^-s
    total += a_s * a / (s - 1.0) + 0.5 * a_s
    total += s * a_s / a * (1.0 / 12.0)    # B2 correction only
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
