"""Activation/selu.py variant: evaluates the public KernelBench-X reference's formula,
scale * (max(x, 0) + min(x, alpha * (exp(x) - 1))), which a model copying that reference writes.
It is not SELU: for x > 0 it gives 2 * scale * x (min(x, alpha (e^x - 1)) = x there), and for
x below about -1.59 it gives scale * x instead of the saturating branch. The description defines
real SELU, so a careful judge fails it.

Otherwise the kernel is Activation/selu.py: one elementwise float32 kernel: scale * x for x > 0 and
scale * alpha * (exp(x) - 1) for x <= 0 (exp on min(x, 0) so the unused branch cannot overflow),
with torch's alpha and scale. Runs on a contiguous copy; with inplace=True the result is copied
back into `input` through its strides and `input` is returned.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


@triton.jit
def _selu_kernel(x_ptr, y_ptr, n, alpha, scale, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    e = alpha * (tl.exp(tl.minimum(x, 30.0)) - 1.0)
    tl.store(y_ptr + offs, scale * (tl.maximum(x, 0.0) + tl.minimum(x, e)), mask=mask)


def selu(input, inplace=False):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _selu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, _ALPHA, _SCALE,
                                                    BLOCK_SIZE=BLOCK_SIZE)
    y = y.view(input.shape)
    if inplace:
        input.copy_(y)
        return input
    return y
