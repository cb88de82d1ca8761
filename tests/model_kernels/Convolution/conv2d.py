"""Convolution/conv2d.py: direct convolution, one program per (n, c_out, block of output pixels),
loops over input channels of the group and the kernel window, float32 accumulation.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, H_out, W_out,
                   sh, sw, ph, pw, dh, dw, cin_per_group, cout_per_group,
                   KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    pid_nc = tl.program_id(0)
    pid_p = tl.program_id(1)
    n = pid_nc // C_out
    co = pid_nc % C_out
    g = co // cout_per_group
    p = pid_p * BLOCK + tl.arange(0, BLOCK)
    pm = p < H_out * W_out
    oh = p // W_out
    ow = p % W_out
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for ci in range(0, cin_per_group):
        cin = g * cin_per_group + ci
        for kh in tl.static_range(KH):
            for kw in tl.static_range(KW):
                ih = oh * sh - ph + kh * dh
                iw = ow * sw - pw + kw * dw
                m = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xv = tl.load(x_ptr + ((n * C_in + cin) * H + ih) * W + iw, mask=m, other=0.0)
                wv = tl.load(w_ptr + ((co * cin_per_group + ci) * KH + kh) * KW + kw)
                acc += xv * wv
    if HAS_BIAS:
        acc += tl.load(b_ptr + co)
    tl.store(y_ptr + (n * C_out + co) * H_out * W_out + p, acc, mask=pm)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x = input.contiguous()
    w = weight.contiguous()
    N, C_in, H, W = x.shape
    C_out, cin_pg, KH, KW = w.shape
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    H_out = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    W_out = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    y = torch.empty((N, C_out, H_out, W_out), dtype=x.dtype, device=x.device)
    BLOCK = 128
    grid = (N * C_out, triton.cdiv(H_out * W_out, BLOCK))
    _conv2d_kernel[grid](x, w, bias if bias is not None else w, y, C_in, H, W, C_out, H_out, W_out,
                         sh, sw, ph, pw, dh, dw, cin_pg, C_out // groups, KH=KH, KW=KW,
                         HAS_BIAS=bias is not None, BLOCK=BLOCK)
    return y
