"""Math/signbit_bitwise_and.py: one kernel; the sign bit from the float32 bits (bitcast to int32,
negative means set, so -0.0 counts), and the float converted to int8 by truncation toward zero
(x.to(tl.int8)) ANDed with `other`; a bool `other` is converted to int8 (0/1) on the host first.
Inputs made contiguous.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _signbit_and_kernel(x_ptr, o_ptr, sign_ptr, and_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    o = tl.load(o_ptr + offs, mask=mask, other=0)
    sign = x.to(tl.int32, bitcast=True) < 0
    xi = x.to(tl.int8)  # fptosi: truncation toward zero
    tl.store(sign_ptr + offs, sign, mask=mask)
    tl.store(and_ptr + offs, xi & o, mask=mask)


def signbit_bitwise_and(input, other):
    x = input.contiguous().to(torch.float32)
    o = other.to(torch.int8).contiguous()
    x, o = torch.broadcast_tensors(x, o)
    x = x.contiguous()
    o = o.contiguous()
    sign = torch.empty(x.shape, dtype=torch.bool, device=x.device)
    anded = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _signbit_and_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, o, sign, anded, n, BLOCK_SIZE=BLOCK_SIZE)
    return sign, anded
