"""Fusion/fused_relu_batch_norm_conv2d.py: direct convolution (one program per (n, group, pixel
block) holding all of the group's output channels; sequential float32 sum over C_in/groups x
kH x kW per output), then per-channel batch statistics (two-pass, one
program per channel; running stats updated in place with the unbiased variance) in training
mode, or the running statistics in eval mode; a final kernel normalises, applies the affine
parameters and ReLU.
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
def _stats_kernel(y_ptr, mean_ptr, var_ptr, rm_ptr, rv_ptr, N, C, S, momentum, HAS_RUN: tl.constexpr,
                  BLOCK: tl.constexpr):
    c = tl.program_id(0)
    total = N * S
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, total, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        m = offs < total
        acc += tl.load(y_ptr + (offs // S) * C * S + c * S + offs % S, mask=m, other=0.0)
    mean = tl.sum(acc, axis=0) / total
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, total, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        m = offs < total
        v = tl.load(y_ptr + (offs // S) * C * S + c * S + offs % S, mask=m, other=0.0)
        d = tl.where(m, v - mean, 0.0)
        acc2 += d * d
    ss = tl.sum(acc2, axis=0)
    tl.store(mean_ptr + c, mean)
    tl.store(var_ptr + c, ss / total)
    if HAS_RUN:
        rm = tl.load(rm_ptr + c)
        rv = tl.load(rv_ptr + c)
        tl.store(rm_ptr + c, (1.0 - momentum) * rm + momentum * mean)
        tl.store(rv_ptr + c, (1.0 - momentum) * rv + momentum * ss / (total - 1))


@triton.jit
def _bn_relu_kernel(y_ptr, o_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, C, S, numel, eps,
                    HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < numel
    c = (offs // S) % C
    v = tl.load(y_ptr + offs, mask=m, other=0.0)
    mean = tl.load(mean_ptr + c, mask=m, other=0.0)
    var = tl.load(var_ptr + c, mask=m, other=1.0)
    z = (v - mean) / tl.sqrt(var + eps)
    if HAS_W:
        z = z * tl.load(w_ptr + c, mask=m, other=1.0)
    if HAS_B:
        z = z + tl.load(b_ptr + c, mask=m, other=0.0)
    tl.store(o_ptr + offs, tl.maximum(z, 0.0), mask=m)


def fused_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                                 running_mean=None, running_var=None, bn_weight=None, bn_bias=None,
                                 training=False, momentum=0.1, eps=1e-05, inplace=False):
    y = _conv2d(input, weight, bias, stride, padding, dilation, groups)
    N, C, Ho, Wo = y.shape
    S = Ho * Wo
    if training:
        mean = torch.empty(C, dtype=torch.float32, device=y.device)
        var = torch.empty(C, dtype=torch.float32, device=y.device)
        has_run = running_mean is not None and running_var is not None
        _stats_kernel[(C,)](y, mean, var, running_mean if has_run else mean, running_var if has_run else var,
                            N, C, S, float(momentum), HAS_RUN=has_run,
                            BLOCK=min(1024, triton.next_power_of_2(N * S)))
    else:
        mean = running_mean.contiguous()
        var = running_var.contiguous()
    out = torch.empty_like(y)
    numel = y.numel()
    _bn_relu_kernel[(triton.cdiv(numel, 1024),)](
        y, out, mean, var, bn_weight if bn_weight is not None else mean, bn_bias if bn_bias is not None else mean,
        C, S, numel, float(eps), HAS_W=bn_weight is not None, HAS_B=bn_bias is not None, BLOCK=1024)
    return out
