"""Pooling/avg_pool1d.py: one program per (row, output block); loops over the kernel window with
masked loads (zero padding counted in the divisor).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _avg_pool1d_kernel(x_ptr, y_ptr, L, L_out, stride, padding,
                       KERNEL_SIZE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    pid = tl.program_id(1)
    o = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    om = o < L_out
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for k in tl.static_range(KERNEL_SIZE):
        pos = o * stride - padding + k
        m = om & (pos >= 0) & (pos < L)
        acc += tl.load(x_ptr + row * L + pos, mask=m, other=0.0)
    tl.store(y_ptr + row * L_out + o, acc / KERNEL_SIZE, mask=om)


def avg_pool1d(input, kernel_size, stride=None, padding=0):
    if stride is None:
        stride = kernel_size
    x = input.contiguous()
    N, C, L = x.shape
    L_out = (L + 2 * padding - kernel_size) // stride + 1
    y = torch.empty((N, C, L_out), dtype=x.dtype, device=x.device)
    BLOCK_SIZE = 128
    grid = (N * C, triton.cdiv(L_out, BLOCK_SIZE))
    _avg_pool1d_kernel[grid](x, y, L, L_out, stride, padding, KERNEL_SIZE=kernel_size, BLOCK_SIZE=BLOCK_SIZE)
    return y
