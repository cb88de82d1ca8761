"""Math/pow.py: one elementwise kernel over the broadcast base and exponent (a Python exponent
becomes a 0-d tensor, broadcast with torch.broadcast_tensors, both made contiguous). Integer
exponents with |y| <= 64 use square-and-multiply on the base (exact for 2.0, sign right for
negative bases, reciprocal for negative y); other exponents use exp2(y * log2|x|), NaN for a
negative base. IEEE special values: x ** 0 = 1 ** y = (-1) ** +-inf = 1, 0 ** y = 0 (y > 0) or
+inf (y < 0). `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _pow_kernel(x_ptr, e_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    e = tl.load(e_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    ax = tl.abs(x)
    # general path: |x|^e
    general = tl.exp2(e * tl.log2(ax))
    e_int = (e == tl.floor(e)) & (tl.abs(e) <= 64.0)
    # integer path: square-and-multiply on |e|
    k = tl.abs(tl.where(e_int, e, 0.0)).to(tl.int32)
    base = x
    acc = tl.full(x.shape, 1.0, tl.float32)
    for _ in tl.static_range(7):  # 2^7 > 64
        acc = tl.where((k & 1) == 1, acc * base, acc)
        base = base * base
        k = k >> 1
    ipow = tl.where(e < 0.0, 1.0 / acc, acc)
    y = tl.where(e_int, ipow, general)
    # negative base, non-integer exponent
    y = tl.where((x < 0.0) & (e != tl.floor(e)), float("nan"), y)
    # large integer exponent on a negative base: |x|^e with the sign of the parity
    odd = (e_int == 0) & (e == tl.floor(e)) & (x < 0.0) & ((tl.abs(e) - 2.0 * tl.floor(tl.abs(e) * 0.5)) == 1.0)
    y = tl.where(odd, -y, y)
    y = tl.where((x == 0.0) & (e < 0.0), float("inf"), y)
    y = tl.where((e == 0.0) | (x == 1.0) | ((x == -1.0) & (tl.abs(e) == float("inf"))), 1.0, y)
    tl.store(y_ptr + offs, y, mask=mask)


def pow(input_tensor, exponent, out=None):
    if not torch.is_tensor(exponent):
        exponent = torch.tensor(float(exponent), dtype=torch.float32, device=input_tensor.device)
    x, e = torch.broadcast_tensors(input_tensor, exponent)
    x = x.to(torch.float32).contiguous()
    e = e.to(torch.float32).contiguous()
    y = torch.empty_like(x)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pow_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, e, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
