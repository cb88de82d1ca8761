"""Fusion/fused_cos_signbit.py: one Triton kernel over the flattened input (made contiguous on
the host) computes c = cos(x) in float32 with tl.cos and the sign bit of c read from its bit
pattern (bitcast to int32, < 0), so -0.0 counts as negative; c is stored as float32 and the sign
into a torch.bool tensor of the same shape. Returns (c, s).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_signbit_kernel(x_ptr, c_ptr, s_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    c = tl.cos(x)
    sb = c.to(tl.int32, bitcast=True) < 0
    tl.store(c_ptr + offs, c, mask=mask)
    tl.store(s_ptr + offs, sb, mask=mask)


def fused_cos_signbit(input):
    x = input.contiguous()
    c = torch.empty(input.shape, dtype=torch.float32, device=input.device)
    s = torch.empty(input.shape, dtype=torch.bool, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _cos_signbit_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, c, s, n, BLOCK_SIZE=BLOCK_SIZE)
    return c, s
