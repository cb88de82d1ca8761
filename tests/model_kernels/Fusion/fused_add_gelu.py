"""Fusion/fused_add_gelu.py: one Triton kernel over the flattened (broadcast) shape computes
r = x + alpha * y in float32 (alpha * y rounded first, as torch does) and then GELU of r -- erf form
0.5*r*(1 + erf(r/sqrt(2))) for approximate='none', tanh form 0.5*r*(1 + tanh(sqrt(2/pi)*(r +
0.044715*r^3))) with tanh(z) = 1 - 2/(exp(2z) + 1) for 'tanh'; other values raise ValueError.
A tensor `other` is broadcast to the result shape on the host (expand + contiguous); a Python
number is passed to the kernel as a scalar. With `out` the result is copied into it and returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _add_gelu_kernel(x_ptr, y_ptr, o_ptr, n, alpha, yscalar, Y_IS_SCALAR: tl.constexpr,
                     APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if Y_IS_SCALAR:
        y = tl.zeros([BLOCK_SIZE], dtype=tl.float32) + yscalar
    else:
        y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = x + alpha * y
    if APPROX_TANH:
        z = 0.7978845608028654 * (r + 0.044715 * r * r * r)
        t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
        g = 0.5 * r * (1.0 + t)
    else:
        g = 0.5 * r * (1.0 + tl.math.erf(r * 0.7071067811865476))
    tl.store(o_ptr + offs, g.to(o_ptr.dtype.element_ty), mask=mask)


def fused_add_gelu(input, other, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if isinstance(other, torch.Tensor):
        shape = torch.broadcast_shapes(input.shape, other.shape)
        y = other.to(input.dtype).expand(shape).contiguous()
        yscalar = 0.0
        y_is_scalar = False
    else:
        shape = input.shape
        y = input
        yscalar = float(other)
        y_is_scalar = True
    x = input.expand(shape).contiguous()
    res = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = res.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _add_gelu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            x, y, res, n, float(alpha), yscalar, Y_IS_SCALAR=y_is_scalar,
            APPROX_TANH=approximate == 'tanh', BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(res)
        return out
    return res
