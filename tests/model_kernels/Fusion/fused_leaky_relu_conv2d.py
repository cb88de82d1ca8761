"""Fusion/fused_leaky_relu_conv2d.py: direct convolution with a 2-D tile per program
(BLOCK_CO output channels of one group x BLOCK_P output pixels of one image): for each of the
group's input channels and each kernel tap, one masked input row-vector and one weight
column-vector are multiplied into a float32 accumulator (zero padding by masking; stride, padding
and dilation as int or pair, groups). Bias and leaky ReLU (y if y >= 0 else negative_slope * y)
in the epilogue. `inplace` is moot: the result is a fresh tensor.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_leaky_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, Ho, Wo,
                       SH, SW, PH, PW, DH, DW, CIN_G, COUT_G, slope, KH: tl.constexpr, KW: tl.constexpr,
                       HAS_BIAS: tl.constexpr, BLOCK_CO: tl.constexpr, BLOCK_P: tl.constexpr):
    pid_np = tl.program_id(0)          # n * num_pixel_blocks + pixel block
    g = tl.program_id(1)
    pid_co = tl.program_id(2)
    num_pb = tl.cdiv(Ho * Wo, BLOCK_P)
    n = pid_np // num_pb
    pb = pid_np % num_pb
    p = pb * BLOCK_P + tl.arange(0, BLOCK_P)
    pm = p < Ho * Wo
    oh = p // Wo
    ow = p % Wo
    col = pid_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    cm = col < COUT_G
    co = g * COUT_G + col
    acc = tl.zeros([BLOCK_CO, BLOCK_P], dtype=tl.float32)
    for ci in range(0, CIN_G):
        x_base = x_ptr + (n * C_in + g * CIN_G + ci) * H * W
        w_base = w_ptr + (co * CIN_G + ci) * KH * KW
        for kh in tl.static_range(KH):
            ih = oh * SH - PH + kh * DH
            for kw in tl.static_range(KW):
                iw = ow * SW - PW + kw * DW
                m = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xv = tl.load(x_base + ih * W + iw, mask=m, other=0.0)
                wv = tl.load(w_base + kh * KW + kw, mask=cm, other=0.0)
                acc += wv[:, None] * xv[None, :]
    if HAS_BIAS:
        acc += tl.load(b_ptr + co, mask=cm, other=0.0)[:, None]
    out = tl.where(acc >= 0, acc, acc * slope)
    y_off = (n * C_out + co[:, None]) * (Ho * Wo) + p[None, :]
    tl.store(y_ptr + y_off, out, mask=cm[:, None] & pm[None, :])


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def fused_leaky_relu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                            negative_slope=0.01, inplace=False):
    x = input.contiguous().float()
    w = weight.contiguous().float()
    b = bias.contiguous().float() if bias is not None else None
    N, C_in, H, W = x.shape
    C_out, CIN_G, KH, KW = w.shape
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    y = torch.empty((N, C_out, Ho, Wo), device=x.device, dtype=torch.float32)
    if y.numel() == 0:
        return y
    cout_g = C_out // groups
    BLOCK_CO = min(32, triton.next_power_of_2(cout_g))
    BLOCK_P = min(256, triton.next_power_of_2(Ho * Wo))
    grid = (N * triton.cdiv(Ho * Wo, BLOCK_P), groups, triton.cdiv(cout_g, BLOCK_CO))
    _conv_leaky_kernel[grid](x, w, b if b is not None else w, y, C_in, H, W, C_out, Ho, Wo,
                             sh, sw, ph, pw, dh, dw, CIN_G, cout_g, float(negative_slope), KH=KH, KW=KW,
                             HAS_BIAS=b is not None, BLOCK_CO=BLOCK_CO, BLOCK_P=BLOCK_P)
    return y
