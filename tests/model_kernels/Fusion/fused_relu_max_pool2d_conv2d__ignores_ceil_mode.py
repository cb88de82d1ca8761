"""Fusion/fused_relu_max_pool2d_conv2d.py variant that ignores pool_ceil_mode: torch's conv2d,
then the Triton max-pool + ReLU kernel, but the pooled size is always the floor division. The
description says the pooling is torch.nn.functional.max_pool2d "with ... pool_ceil_mode", which
with ceil_mode=True keeps the last partial window whenever (H_conv + 2p - d(k-1) - 1) is not a
multiple of the stride (e.g. a 7x7 conv output with a 2x2 pool gives 4x4, not 3x3), so this
returns the wrong shape there.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _maxpool_relu_kernel(y_ptr, o_ptr, H, W, Hp, Wp, SH, SW, PH, PW, DH, DW,
                         KH: tl.constexpr, KW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    om = offs < Hp * Wp
    ph = offs // Wp
    pw = offs % Wp
    base = y_ptr + plane * H * W
    best = tl.full([BLOCK], float('-inf'), dtype=tl.float32)
    for kh in tl.static_range(KH):
        ih = ph * SH - PH + kh * DH
        for kw in tl.static_range(KW):
            iw = pw * SW - PW + kw * DW
            m = om & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(base + ih * W + iw, mask=m, other=float('-inf'))
            best = tl.maximum(best, v)
    tl.store(o_ptr + plane * Hp * Wp + offs, tl.maximum(best, 0.0), mask=om)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def _pool_out(size, k, s, p, d, ceil_mode):
    eff = size + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-eff // s) + 1
        if (out - 1) * s >= size + p:   # last window would start inside the padding
            out -= 1
    else:
        out = eff // s + 1
    return out


def fused_relu_max_pool2d_conv2d(input, weight, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1,
                                 conv_groups=1, pool_kernel_size=2, pool_stride=None, pool_padding=0,
                                 pool_dilation=1, pool_ceil_mode=False, inplace=False):
    tup = lambda v: tuple(v) if isinstance(v, list) else v
    y = F.conv2d(input.float(), weight.float(), bias.float() if bias is not None else None,
                 tup(conv_stride), tup(conv_padding), tup(conv_dilation), conv_groups).contiguous()
    N, C, H, W = y.shape
    kh, kw = _pair(pool_kernel_size)
    sh, sw = _pair(pool_stride) if pool_stride is not None else (kh, kw)
    ph, pw = _pair(pool_padding)
    dh, dw = _pair(pool_dilation)
    Hp = _pool_out(H, kh, sh, ph, dh, False)
    Wp = _pool_out(W, kw, sw, pw, dw, False)
    out = torch.empty((N, C, Hp, Wp), dtype=torch.float32, device=y.device)
    if out.numel() == 0:
        return out
    BLOCK = min(1024, triton.next_power_of_2(Hp * Wp))
    grid = (N * C, triton.cdiv(Hp * Wp, BLOCK))
    _maxpool_relu_kernel[grid](y, out, H, W, Hp, Wp, sh, sw, ph, pw, dh, dw, KH=kh, KW=kw, BLOCK=BLOCK)
    return out
