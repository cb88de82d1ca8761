"""Fusion/fused_conv2d_add.py variant with numpy-style "broadcast by wrap-around": a tensor
`other` is flattened and read at (flat output index) % other.numel(). That equals broadcasting
only when other has the output's full shape or broadcasts over leading dimensions alone; for a
per-channel other of shape (1, C_out, 1, 1) the element read for output (n, c, h, w) is
other[flat % C_out], not other[c]. The description says `other` is "a tensor broadcastable to y"
with y + alpha * other as torch's broadcasting defines it, so this is wrong (the upstream cases
pass full-shape others and cannot show it).
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_add_kernel(x_ptr, w_ptr, b_ptr, o_ptr, y_ptr, C_in, H, W, C_out, Ho, Wo, KH, KW,
                       SH, SW, PH, PW, DH, DW, CIN_G, COUT_G, alpha, other_scalar, other_numel,
                       HAS_BIAS: tl.constexpr, OTHER_MODE: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    co = tl.program_id(1)
    offs = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    pmask = offs < Ho * Wo
    oh = offs // Wo
    ow = offs % Wo
    g = co // COUT_G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for ci in range(0, CIN_G):
        c = g * CIN_G + ci
        for kh in range(0, KH):
            ih = oh * SH - PH + kh * DH
            hmask = (ih >= 0) & (ih < H)
            for kw in range(0, KW):
                iw = ow * SW - PW + kw * DW
                m = pmask & hmask & (iw >= 0) & (iw < W)
                xv = tl.load(x_ptr + ((n * C_in + c) * H + ih) * W + iw, mask=m, other=0.0)
                wv = tl.load(w_ptr + ((co * CIN_G + ci) * KH + kh) * KW + kw)
                acc += xv * wv
    if HAS_BIAS:
        acc += tl.load(b_ptr + co)
    out_off = (n * C_out + co) * Ho * Wo + offs
    if OTHER_MODE == 1:  # tensor other: index modulo its size
        acc += alpha * tl.load(o_ptr + out_off % other_numel, mask=pmask, other=0.0)
    elif OTHER_MODE == 2:  # Python number
        acc += alpha * other_scalar
    tl.store(y_ptr + out_off, acc, mask=pmask)


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


def fused_conv2d_add(input, weight, bias=None, other=None, stride=1, padding=0, dilation=1, groups=1,
                     alpha=1, out=None):
    x = input.contiguous().to(torch.float32)
    w = weight.contiguous().to(torch.float32)
    N, C_in, H, W = x.shape
    C_out, CIN_G, KH, KW = w.shape
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    y = torch.empty((N, C_out, Ho, Wo), dtype=torch.float32, device=x.device)
    b = bias.contiguous().to(torch.float32) if bias is not None else None
    if isinstance(other, torch.Tensor):
        # flatten other; smaller tensors broadcast by wrapping around
        o = other.contiguous().to(torch.float32).reshape(-1)
        mode, scalar = 1, 0.0
    elif other is not None:
        o, mode, scalar = None, 2, float(other)
    else:
        o, mode, scalar = None, 0, 0.0
    BLOCK = 128
    if y.numel() > 0:
        grid = (N, C_out, triton.cdiv(Ho * Wo, BLOCK))
        _conv2d_add_kernel[grid](x, w, b if b is not None else w, o if o is not None else y, y,
                                 C_in, H, W, C_out, Ho, Wo, KH, KW, sh, sw, ph, pw, dh, dw,
                                 CIN_G, C_out // groups, float(alpha), scalar,
                                 o.numel() if o is not None else 1,
                                 HAS_BIAS=b is not None, OTHER_MODE=mode, BLOCK=BLOCK)
    if out is not None:
        out.copy_(y)
        return out
    return y
