"""Fusion/fused_gelu_conv2d.py: the convolution itself is torch.nn.functional.conv2d (float32,
every stride/padding/dilation/groups form it takes); a Triton kernel applies GELU to it in one
pass over the flattened output and writes the result -- erf form 0.5*y*(1 + erf(y/sqrt(2))) for
approximate='none', tanh form 0.5*y*(1 + tanh(sqrt(2/pi)*(y + 0.044715*y^3))) for 'tanh', with
tanh(z) = 1 - 2/(exp(2z) + 1) (saturates correctly at +-inf). With `out` the kernel writes into a
contiguous float32 `out` directly, else into a temporary copied into it.
"""
# expect: ok
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(y_ptr, o_ptr, n, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if APPROX_TANH:
        z = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
        r = 0.5 * y * (1.0 + t)
    else:
        r = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    tl.store(o_ptr + offs, r, mask=mask)


def fused_gelu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if isinstance(stride, list):
        stride = tuple(stride)
    if isinstance(padding, list):
        padding = tuple(padding)
    if isinstance(dilation, list):
        dilation = tuple(dilation)
    y = F.conv2d(input.float(), weight.float(), bias.float() if bias is not None else None,
                 stride, padding, dilation, groups).contiguous()
    direct = out is not None and out.is_contiguous() and out.dtype == torch.float32 and out.shape == y.shape
    res = out if direct else torch.empty_like(y)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _gelu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](y, res, n, APPROX_TANH=approximate == 'tanh',
                                                    BLOCK_SIZE=BLOCK_SIZE)
    if out is not None and not direct:
        out.copy_(res)
        return out
    return res
