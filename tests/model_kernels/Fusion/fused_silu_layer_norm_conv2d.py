"""Fusion/fused_silu_layer_norm_conv2d.py: direct convolution (one program per (n, group, pixel
block) holding all of the group's output channels; sequential float32 sum over C_in/groups x kH x
kW per output), then one program per sample computes the layer-norm
mean and biased variance over (C_out, Ho, Wo) in two blocked passes and writes
SiLU(weight[c] * (y - mean) * rstd).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, Ho, Wo, KH, KW,
                   SH, SW, PH, PW, DH, DW, CIN_G, COUT_G, HAS_BIAS: tl.constexpr, BLOCK_CO: tl.constexpr,
                   BLOCK: tl.constexpr):
    # one program per (n, group, pixel block): all of the group's output channels at once
    n = tl.program_id(0)
    g = tl.program_id(1)
    p = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    pm = p < Ho * Wo
    oh = p // Wo
    ow = p % Wo
    cos = tl.arange(0, BLOCK_CO)
    com = cos < COUT_G
    co = g * COUT_G + cos
    acc = tl.zeros([BLOCK_CO, BLOCK], dtype=tl.float32)
    for ci in range(0, CIN_G):
        cin = g * CIN_G + ci
        for kh in range(0, KH):
            ih = oh * SH - PH + kh * DH
            for kw in range(0, KW):
                iw = ow * SW - PW + kw * DW
                m = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xv = tl.load(x_ptr + ((n * C_in + cin) * H + ih) * W + iw, mask=m, other=0.0)
                wv = tl.load(w_ptr + ((co * CIN_G + ci) * KH + kh) * KW + kw, mask=com, other=0.0)
                acc += wv[:, None] * xv[None, :]
    if HAS_BIAS:
        acc += tl.load(b_ptr + co, mask=com, other=0.0)[:, None]
    tl.store(y_ptr + (n * C_out + co[:, None]) * Ho * Wo + p[None, :], acc, mask=com[:, None] & pm[None, :])


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv2d(x, w, b, stride, padding, dilation, groups):
    x = x.contiguous().float()
    w = w.contiguous().float()
    N, C_in, H, W = x.shape
    C_out, CIN_G, KH, KW = w.shape
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if isinstance(padding, str):
        if padding == 'valid':
            ph = pw = 0
        else:
            ph, pw = dh * (KH - 1) // 2, dw * (KW - 1) // 2
    else:
        ph, pw = _pair(padding)
    Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    y = torch.empty((N, C_out, Ho, Wo), dtype=torch.float32, device=x.device)
    BLOCK = 128
    cout_g = C_out // groups
    _conv2d_kernel[(N, groups, triton.cdiv(Ho * Wo, BLOCK))](
        x, w, b if b is not None else w, y, C_in, H, W, C_out, Ho, Wo, KH, KW, sh, sw, ph, pw, dh, dw,
        CIN_G, cout_g, HAS_BIAS=b is not None, BLOCK_CO=triton.next_power_of_2(cout_g), BLOCK=BLOCK)
    return y


@triton.jit
def _ln_silu_kernel(y_ptr, w_ptr, o_ptr, L, S, eps, HAS_W: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    base = n * L
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, L, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        acc += tl.load(y_ptr + base + offs, mask=offs < L, other=0.0)
    mean = tl.sum(acc, axis=0) / L
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, L, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        m = offs < L
        d = tl.where(m, tl.load(y_ptr + base + offs, mask=m, other=0.0) - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / L + eps)
    for s0 in range(0, L, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        m = offs < L
        z = (tl.load(y_ptr + base + offs, mask=m, other=0.0) - mean) * rstd
        if HAS_W:
            z = z * tl.load(w_ptr + offs // S, mask=m, other=1.0)
        tl.store(o_ptr + base + offs, z / (1.0 + tl.exp(-z)), mask=m)


def fused_silu_layer_norm_conv2d(x, weight, conv_weight, conv_bias=None, conv_stride=1, conv_padding=0,
                                 conv_dilation=1, conv_groups=1, ln_eps=1e-05):
    y = _conv2d(x, conv_weight, conv_bias, conv_stride, conv_padding, conv_dilation, conv_groups)
    N, C, Ho, Wo = y.shape
    L = C * Ho * Wo
    out = torch.empty_like(y)
    _ln_silu_kernel[(N,)](y, weight.contiguous() if weight is not None else y, out, L, Ho * Wo, float(ln_eps),
                          HAS_W=weight is not None, BLOCK=min(1024, triton.next_power_of_2(L)))
    return out
