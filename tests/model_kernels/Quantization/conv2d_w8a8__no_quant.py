"""Quantization/conv2d_w8a8.py variant: a plain float32 implicit-GEMM convolution (float32
tl.dot in IEEE precision, bias added) that never quantises, i.e. upstream's F.conv2d reference.
The description requires int8 operands (per-tensor activation scale, per-channel weight scales,
exact int32 sums), so the result must match the quantised scheme; this one is off by the whole
quantisation error.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_kernel(x_ptr, w_ptr, b_ptr, o_ptr, N, C, H, W, CO, OH, OW, KH, KW, SH, SW, PH, PW,
                 HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    M = N * OH * OW
    K = C * KH * KW
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mmask = rm < M
    nmask = rn < CO
    n_idx = rm // (OH * OW)
    oh = (rm % (OH * OW)) // OW
    ow = rm % OW
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < K
        ci = rk // (KH * KW)
        kh = (rk % (KH * KW)) // KW
        kw = rk % KW
        ih = oh[:, None] * SH - PH + kh[None, :]
        iw = ow[:, None] * SW - PW + kw[None, :]
        amask = mmask[:, None] & kmask[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_ptr + ((n_idx[:, None] * C + ci[None, :]) * H + ih) * W + iw, mask=amask, other=0.0)
        b = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=kmask[:, None] & nmask[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    if HAS_BIAS:
        acc = acc + tl.load(b_ptr + rn, mask=nmask, other=0.0)[None, :]
    o_off = ((n_idx[:, None] * CO + rn[None, :]) * OH + oh[:, None]) * OW + ow[:, None]
    tl.store(o_ptr + o_off, acc, mask=mmask[:, None] & nmask[None, :])


def _pair(v):
    return (int(v[0]), int(v[1])) if isinstance(v, (tuple, list)) else (int(v), int(v))


def conv2d_w8a8(input, weight, bias=None, stride=1, padding=0):
    x = input.float().contiguous()
    w = weight.float().contiguous()
    N, C, H, W = x.shape
    CO, _, KH, KW = w.shape
    SH, SW = _pair(stride)
    PH, PW = _pair(padding)
    OH = (H + 2 * PH - KH) // SH + 1
    OW = (W + 2 * PW - KW) // SW + 1
    out = torch.empty((N, CO, OH, OW), dtype=torch.float32, device=x.device)
    has_bias = bias is not None
    b = bias.float().contiguous() if has_bias else out
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * OH * OW, BLOCK_M), triton.cdiv(CO, BLOCK_N))
    _conv_kernel[grid](x, w, b, out, N, C, H, W, CO, OH, OW, KH, KW, SH, SW, PH, PW,
                       HAS_BIAS=has_bias, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
