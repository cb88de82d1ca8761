"""Fusion/fused_pixel_shuffle_conv2d.py: direct convolution whose store is the pixel shuffle.
One program per (n, conv output channel, pixel block) sums the group's C_in/groups x kH x kW taps
in float32 (zero padding by masking; stride/padding/dilation int or pair; groups; bias), then
writes conv channel oc = c*r^2 + i*r + j at (h, w) straight to out[n, c, h*r + i, w*r + j].
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_shuffle_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C_in, H, W, C_out, Ho, Wo, KH, KW,
                         SH, SW, PH, PW, DH, DW, CIN_G, COUT_G, R: tl.constexpr,
                         HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    oc = tl.program_id(1)
    offs = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    pm = offs < Ho * Wo
    oh = offs // Wo
    ow = offs % Wo
    g = oc // COUT_G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for ci in range(0, CIN_G):
        x_base = x_ptr + (n * C_in + g * CIN_G + ci) * H * W
        for kh in range(0, KH):
            ih = oh * SH - PH + kh * DH
            for kw in range(0, KW):
                iw = ow * SW - PW + kw * DW
                m = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xv = tl.load(x_base + ih * W + iw, mask=m, other=0.0)
                wv = tl.load(w_ptr + ((oc * CIN_G + ci) * KH + kh) * KW + kw)
                acc += xv * wv
    if HAS_BIAS:
        acc += tl.load(b_ptr + oc)
    # pixel shuffle: oc = c * R^2 + i * R + j  ->  out[n, c, oh * R + i, ow * R + j]
    c = oc // (R * R)
    i = (oc % (R * R)) // R
    j = oc % R
    C_ps = C_out // (R * R)
    Hr = Ho * R
    Wr = Wo * R
    out_off = ((n * C_ps + c) * Hr + oh * R + i) * Wr + ow * R + j
    tl.store(out_ptr + out_off, acc, mask=pm)


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def fused_pixel_shuffle_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                               upscale_factor=2):
    x = input.contiguous().float()
    w = weight.contiguous().float()
    b = bias.contiguous().float() if bias is not None else None
    N, C_in, H, W = x.shape
    C_out, CIN_G, KH, KW = w.shape
    r = int(upscale_factor)
    if C_out % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's channel count to be divisible by upscale_factor^2")
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    out = torch.empty((N, C_out // (r * r), Ho * r, Wo * r), dtype=torch.float32, device=x.device)
    if out.numel() == 0:
        return out
    BLOCK = min(256, triton.next_power_of_2(Ho * Wo))
    grid = (N, C_out, triton.cdiv(Ho * Wo, BLOCK))
    _conv_shuffle_kernel[grid](x, w, b if b is not None else w, out, C_in, H, W, C_out, Ho, Wo, KH, KW,
                               sh, sw, ph, pw, dh, dw, CIN_G, C_out // groups, R=r,
                               HAS_BIAS=b is not None, BLOCK=BLOCK)
    return out
