"""Fusion/fused_gelu_conv2d.py variant that ignores `approximate`: torch's conv2d, then a Triton
kernel that always applies the exact erf GELU ("more accurate anyway"). The description defines
approximate='tanh' as 0.5*y*(1 + tanh(sqrt(2/pi)*(y + 0.044715*y^3))), which differs from the erf
form by up to ~5e-4 near |y| ~ 2, far above the 1e-5 tolerance; the upstream cases all pass
approximate='tanh', so they fail.
"""
# expect: incorrect
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
        # the exact GELU is always at least as accurate as the tanh approximation
        _gelu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](y, res, n, APPROX_TANH=False, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None and not direct:
        out.copy_(res)
        return out
    return res
