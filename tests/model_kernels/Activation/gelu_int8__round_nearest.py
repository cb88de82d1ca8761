"""Activation/gelu_int8.py variant with the quantization habit of rounding before the cast:
tl.floor(y + 0.5).to(tl.int8). GELU is otherwise right (float32, both forms), but x = 2, 3, 4, 5
give x instead of x - 1 (GELU(2) = 1.9545 rounds to 2; negatives, GELU in (-0.17, 0], still give
0 as truncation would); the description says truncation toward zero, "no rounding", and spells
out that 2..5 map to x - 1.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_int8_kernel(x_ptr, y_ptr, n, USE_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.float32)
    if USE_TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    y = tl.floor(y + 0.5)
    tl.store(y_ptr + offs, y.to(tl.int8), mask=mask)


def gelu_int8(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        gelu_int8_kernel[(triton.cdiv(n, 1024),)](x, y, n, USE_TANH=approximate == 'tanh',
                                                  BLOCK_SIZE=1024)
    return y.view(input.shape)
