"""Quantization/layernorm_w8a8.py variant: the variance is divided by D - 1 (unbiased, as
torch.var's default) instead of D (biased, as F.layer_norm and the description). Every row is
scaled by sqrt((D - 1) / D), which the per-row quantisation then carries through: the integer
codes stay the same but q * s is too small by that factor (6.5% for D = 8, 0.2% for D = 256),
and D = 1 divides by zero. A careful judge fails it.

Otherwise the kernel is Quantization/layernorm_w8a8.py: one program per normalised row (the trailing
prod(normalized_shape) elements, the input made contiguous and viewed as [R, D]). The row is
held in registers: mean, then the biased variance as the mean of (x - mean)^2 (two-pass),
y = (x - mean) / sqrt(var + eps) * weight + bias in float32, then
s = max|y| / 127, q = clamp(round_half_even(y / s), -127, 127) (a zero scale replaced by 1, so
a zero row stays 0), and q * s is stored.
"""
# expect: incorrect
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    r = tl.floor(x + 0.5)
    tie = (r - x) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def _ln_w8a8_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, eps, HAS_W: tl.constexpr,
                    HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < D
    base = row.to(tl.int64) * D
    x = tl.load(x_ptr + base + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(m, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / (D - 1)
    y = xc / tl.sqrt(var + eps)
    if HAS_W:
        y = y * tl.load(w_ptr + offs, mask=m, other=0.0)
    if HAS_B:
        y = y + tl.load(b_ptr + offs, mask=m, other=0.0)
    y = tl.where(m, y, 0.0)
    scale = tl.max(tl.abs(y), axis=0) / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    q = tl.minimum(tl.maximum(_round_half_even(y / safe), -127.0), 127.0)
    tl.store(y_ptr + base + offs, q * scale, mask=m)


def layernorm_w8a8(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    D = math.prod(normalized_shape)
    x = input.contiguous().float()
    R = x.numel() // D if D > 0 else 0
    y = torch.empty_like(x)
    w = weight.contiguous().float() if weight is not None else x
    b = bias.contiguous().float() if bias is not None else x
    if R > 0:
        _ln_w8a8_kernel[(R,)](x, w, b, y, D, eps, HAS_W=weight is not None,
                              HAS_B=bias is not None, BLOCK=triton.next_power_of_2(D))
    return y.view(input.shape)
