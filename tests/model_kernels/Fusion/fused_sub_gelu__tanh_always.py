"""Fusion/fused_sub_gelu.py, weaker variant: always uses the tanh approximation, also for
approximate='none' (erf GELU), which differs by up to ~5e-4.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _sub_gelu_kernel(x_ptr, o_ptr, y_ptr, n, alpha, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    o = tl.load(o_ptr + offs, mask=m, other=0.0)
    r = x - alpha * o
    if TANH:
        inner = 0.7978845608028654 * (r + 0.044715 * r * r * r)
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        y = 0.5 * r * (1.0 + t)
    else:
        y = 0.5 * r * (1.0 + tl.math.erf(r * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=m)


def fused_sub_gelu(input, other, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if not torch.is_tensor(other):
        other = torch.tensor(float(other), dtype=input.dtype, device=input.device)
    x, o = torch.broadcast_tensors(input, other)
    x = x.contiguous()
    o = o.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _sub_gelu_kernel[(triton.cdiv(n, 1024),)](x, o, y, n, float(alpha), TANH=True, BLOCK_SIZE=1024)
    if out is not None:
        out.copy_(y)
        return out
    return y
