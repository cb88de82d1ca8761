"""Fusion/fused_softmax_log.py variant: exp2/log2 trick (softmax(log x) = 2^(log2 x - max) / sum),
float32 math even for float64 inputs would be wrong, so the kernel works in the input's dtype.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_log_kernel(x_ptr, y_ptr, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0)
    z = tl.where(m, tl.log2(x), float('-inf'))
    zmax = tl.max(z, axis=0)
    e = tl.exp2(z - zmax)
    s = tl.sum(e, axis=0)
    tl.store(y_ptr + row * N + offs, e / s, mask=m)


def fused_softmax_log(input, dim=-1, dtype=None):
    x = input.to(dtype) if dtype is not None else input
    x = x.transpose(dim, -1).contiguous()
    N = x.shape[-1]
    y = torch.empty_like(x)
    softmax_log_kernel[(x.numel() // N,)](x, y, N, BLOCK_SIZE=triton.next_power_of_2(N))
    return y.transpose(dim, -1)
