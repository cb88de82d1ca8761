"""Fusion/fused_relu_conv2d.py variant, "tensor-core" style: the implicit-GEMM convolution casts
both the gathered input tile and the weight tile to float16 before tl.dot (float32 accumulator).
Every product then carries the float16 rounding of its operands (~5e-4 relative), far beyond the
float32 convolution the description asks for ("float32"; judged against the exact result with
an error bound of 48 float32 ulps of sum |x||w|), so the outputs miss by ~1e-3 on O(1) values.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, C_in, H, W, C_out, Ho, Wo, KH, KW,
                      SH, SW, PH, PW, DH, DW, CIN_G, COUT_G, HAS_BIAS: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g = tl.program_id(2)
    M = N * Ho * Wo
    K = CIN_G * KH * KW
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mm = rm < M
    nm = rn < COUT_G
    n_idx = rm // (Ho * Wo)
    pix = rm % (Ho * Wo)
    oh = pix // Wo
    ow = pix % Wo
    co = g * COUT_G + rn
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        km = rk < K
        ci = rk // (KH * KW)
        kr = rk % (KH * KW)
        kh = kr // KW
        kw = kr % KW
        ih = oh[:, None] * SH - PH + kh[None, :] * DH
        iw = ow[:, None] * SW - PW + kw[None, :] * DW
        xm = mm[:, None] & km[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        x_off = ((n_idx[:, None] * C_in + g * CIN_G + ci[None, :]) * H + ih) * W + iw
        a = tl.load(x_ptr + x_off, mask=xm, other=0.0)
        # weight is [C_out, CIN_G * KH * KW] row-major: element (k, co)
        b = tl.load(w_ptr + co[None, :] * K + rk[:, None], mask=km[:, None] & nm[None, :], other=0.0)
        # half-precision operands for the tensor cores, float32 accumulator
        acc += tl.dot(a.to(tl.float16), b.to(tl.float16))
    if HAS_BIAS:
        acc += tl.load(b_ptr + co, mask=nm, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    y_off = (n_idx[:, None] * C_out + co[None, :]) * (Ho * Wo) + pix[:, None]
    tl.store(y_ptr + y_off, acc, mask=mm[:, None] & nm[None, :])


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def fused_relu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, inplace=False):
    x = input.contiguous().float()
    w = weight.contiguous().float()
    b = bias.contiguous().float() if bias is not None else None
    N, C_in, H, W = x.shape
    C_out, CIN_G, KH, KW = w.shape
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if isinstance(padding, str):
        if padding == 'valid':
            ph = pw = 0
        elif padding == 'same':
            # torch pads total = d * (k - 1), the smaller half on the top/left
            ph, pw = dh * (KH - 1) // 2, dw * (KW - 1) // 2
        else:
            raise ValueError(f"invalid padding {padding!r}")
    else:
        ph, pw = _pair(padding)
    if padding == 'same':
        Ho, Wo = H, W
    else:
        Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
        Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    y = torch.empty((N, C_out, Ho, Wo), dtype=torch.float32, device=x.device)
    cout_g = C_out // groups
    M = N * Ho * Wo
    if M == 0 or C_out == 0:
        return y
    BM, BN, BK = 64, max(16, min(64, triton.next_power_of_2(cout_g))), 32
    grid = (triton.cdiv(M, BM), triton.cdiv(cout_g, BN), groups)
    _conv_relu_kernel[grid](x, w, b if b is not None else w, y, N, C_in, H, W, C_out, Ho, Wo, KH, KW,
                            sh, sw, ph, pw, dh, dw, CIN_G, cout_g, HAS_BIAS=b is not None,
                            BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return y
