"""Convolution/conv_transpose2d.py: gather form, one program per (n, group, block of output
pixels) holding all of the group's output channels: for each input channel of the group and each kernel tap, the contributing input pixel is
((oh + pH - i * dH) / sH) when divisible and in range; float32 products summed sequentially, bias
added last.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _convt_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, Ho, Wo, KH, KW, SH, SW, PH, PW, DH, DW,
                  CIN_G, COUT_G, HAS_BIAS: tl.constexpr, BLOCK_CO: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    g = tl.program_id(1)
    p = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    pm = p < Ho * Wo
    oh = p // Wo
    ow = p % Wo
    col = tl.arange(0, BLOCK_CO)
    com = col < COUT_G
    co = g * COUT_G + col
    acc = tl.zeros([BLOCK_CO, BLOCK], dtype=tl.float32)
    for ci in range(0, CIN_G):
        c = g * CIN_G + ci
        for i in range(0, KH):
            th = oh + PH - i * DH
            ih = th // SH
            okh = (th >= 0) & (th % SH == 0) & (ih < H)
            for j in range(0, KW):
                tw = ow + PW - j * DW
                iw = tw // SW
                m = pm & okh & (tw >= 0) & (tw % SW == 0) & (iw < W)
                xv = tl.load(x_ptr + ((n * C_in + c) * H + ih) * W + iw, mask=m, other=0.0)
                wv = tl.load(w_ptr + ((c * COUT_G + col) * KH + i) * KW + j, mask=com, other=0.0)
                acc += wv[:, None] * xv[None, :]
    if HAS_BIAS:
        acc += tl.load(b_ptr + co, mask=com, other=0.0)[:, None]
    tl.store(y_ptr + (n * C_out + co[:, None]) * Ho * Wo + p[None, :], acc, mask=com[:, None] & pm[None, :])


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    x = input.contiguous()
    w = weight.contiguous()
    N, C_in, H, W = x.shape
    _, COUT_G, KH, KW = w.shape
    C_out = COUT_G * groups
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    oph, opw = _pair(output_padding)
    dh, dw = _pair(dilation)
    Ho = (H - 1) * sh - 2 * ph + dh * (KH - 1) + oph + 1
    Wo = (W - 1) * sw - 2 * pw + dw * (KW - 1) + opw + 1
    y = torch.empty((N, C_out, Ho, Wo), dtype=x.dtype, device=x.device)
    BLOCK = 128
    _convt_kernel[(N, groups, triton.cdiv(Ho * Wo, BLOCK))](
        x, w, bias if bias is not None else w, y, C_in, H, W, C_out, Ho, Wo, KH, KW, sh, sw, ph, pw, dh, dw,
        C_in // groups, COUT_G, HAS_BIAS=bias is not None, BLOCK_CO=triton.next_power_of_2(COUT_G), BLOCK=BLOCK)
    return y
