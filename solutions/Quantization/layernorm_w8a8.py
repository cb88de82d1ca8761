"""Quantization/layernorm_w8a8.py: layer norm + per-row int8 quantise/dequantise in one kernel
(eager: layer_norm, abs, amax, div, round, clamp, mul: seven launches and six HBM round trips).

Design: one program per row, the row held in registers (rows up to 16384 elements; 4-16 warps by
size): one HBM read of x, mean and then the biased variance from the centred registers (two-pass,
as exact as F.layer_norm), y = (x - mean) * rstd * w + b, absmax of y, s = absmax / 127,
q = rne(y / s) clamped to +-127 (rne by the float32 1.5 * 2^23 add/subtract, exact for |v| < 2^22),
and one write of q * s. Longer rows fall back to a chunked 4-sweep version. Rows are addressed
with the input's row and column strides (any view whose leading dims and normalised dims each
collapse, which covers non-contiguous last-dim views, is read in place; others are copied).
The perf shapes (B = 32 rows of up to 8192) are launch-bound for eager; this is one launch.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _rne(v):
    return (v + 12582912.0) - 12582912.0


@triton.jit
def _ln_q_row_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, sxr, sxc, eps,
                     HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(x_ptr + row * sxr + cols * sxc, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / D
    rstd = 1.0 / tl.sqrt(var + eps)
    y = xc * rstd
    if HAS_W:
        y = y * tl.load(w_ptr + cols, mask=mask, other=0.0)
    if HAS_B:
        y = y + tl.load(b_ptr + cols, mask=mask, other=0.0)
    y = tl.where(mask, y, 0.0)
    scale = tl.max(tl.abs(y), axis=0) / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    q = tl.minimum(tl.maximum(_rne(y / safe), -127.0), 127.0)
    tl.store(y_ptr + row * D + cols, q * scale, mask=mask)


@triton.jit
def _ln_q_chunked_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, sxr, sxc, eps,
                         HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    xr = x_ptr + row * sxr
    acc = tl.zeros([BLOCK], tl.float32)
    for k in range(0, D, BLOCK):
        c = k + cols
        acc += tl.load(xr + c * sxc, mask=c < D, other=0.0)
    mean = tl.sum(acc, axis=0) / D
    acc = tl.zeros([BLOCK], tl.float32)
    for k in range(0, D, BLOCK):
        c = k + cols
        xc = tl.where(c < D, tl.load(xr + c * sxc, mask=c < D, other=0.0) - mean, 0.0)
        acc += xc * xc
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / D + eps)
    amax = tl.zeros([BLOCK], tl.float32)
    for k in range(0, D, BLOCK):
        c = k + cols
        m = c < D
        y = (tl.load(xr + c * sxc, mask=m, other=0.0) - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=m, other=0.0)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=m, other=0.0)
        amax = tl.maximum(amax, tl.where(m, tl.abs(y), 0.0))
    scale = tl.max(amax, axis=0) / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    for k in range(0, D, BLOCK):
        c = k + cols
        m = c < D
        y = (tl.load(xr + c * sxc, mask=m, other=0.0) - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=m, other=0.0)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=m, other=0.0)
        q = tl.minimum(tl.maximum(_rne(y / safe), -127.0), 127.0)
        tl.store(y_ptr + row * D + c, q * scale, mask=m)


def layernorm_w8a8(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    D = math.prod(normalized_shape)
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        return out
    R = input.numel() // D
    try:
        x2 = input.view(R, D)
    except RuntimeError:
        x2 = input.reshape(R, D)
    w = weight.reshape(D).contiguous() if weight is not None else x2
    b = bias.reshape(D).contiguous() if bias is not None else x2
    args = (x2, w, b, out, D, x2.stride(0), x2.stride(1), float(eps))
    if D <= 16384:
        BLOCK = triton.next_power_of_2(D)
        warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 8192 else 16)
        _ln_q_row_kernel[(R,)](*args, HAS_W=weight is not None, HAS_B=bias is not None,
                               BLOCK=BLOCK, num_warps=warps)
    else:
        _ln_q_chunked_kernel[(R,)](*args, HAS_W=weight is not None, HAS_B=bias is not None,
                                   BLOCK=4096, num_warps=8)
    return out
