"""Quantization/conv2d_w8a8.py variant: quantises the weight with ONE per-tensor scale
sw = max|weight| / 127 (shared by every output channel, reusing the activation's absmax kernels)
instead of the per-output-channel scales sw[co] = max|weight[co]| / 127 the description states.
Channels whose filters are smaller than the largest one get a coarser grid than the scheme
prescribes, so their outputs differ from the scheme's by their quantisation noise (worst on the
outlier cases, where one x10 weight sets the scale of all channels).
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    d = x - f
    odd = (f - 2.0 * tl.floor(f * 0.5)) != 0.0
    up = (d > 0.5) | ((d == 0.5) & odd)
    return tl.where(up, f + 1.0, f)


@triton.jit
def _absmax_partial_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(part_ptr + pid, tl.max(tl.abs(x), axis=0))


@triton.jit
def _scale_from_partials_kernel(part_ptr, s_ptr, n_parts, BLOCK: tl.constexpr):
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n_parts, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        amax = tl.maximum(amax, tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0))
    tl.store(s_ptr, tl.max(amax, axis=0) / 127.0)


@triton.jit
def _quant_tensor_kernel(x_ptr, s_ptr, q_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    s = tl.load(s_ptr)
    safe = tl.where(s == 0.0, 1.0, s)
    q = _round_half_even(x / safe)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + offs, q.to(tl.int8), mask=m)


@triton.jit
def _conv_int8_kernel(x_ptr, w_ptr, sx_ptr, sw_ptr, b_ptr, o_ptr,
                      N, C, H, W, CO, OH, OW, KH, KW, SH, SW, PH, PW,
                      HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    M = N * OH * OW
    K = C * KH * KW
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # output pixel (n, oh, ow)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # output channel
    mmask = rm < M
    nmask = rn < CO
    n_idx = rm // (OH * OW)
    rest = rm % (OH * OW)
    oh = rest // OW
    ow = rest % OW
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < K
        ci = rk // (KH * KW)
        kr = rk % (KH * KW)
        kh = kr // KW
        kw = kr % KW
        ih = oh[:, None] * SH - PH + kh[None, :]
        iw = ow[:, None] * SW - PW + kw[None, :]
        amask = mmask[:, None] & kmask[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_ptr + ((n_idx[:, None] * C + ci[None, :]) * H + ih) * W + iw, mask=amask, other=0)
        b = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=kmask[:, None] & nmask[None, :], other=0)
        acc += tl.dot(a, b)
    sx = tl.load(sx_ptr)
    sw = tl.load(sw_ptr + rn, mask=nmask, other=0.0)
    out = acc.to(tl.float32) * sx * sw[None, :]
    if HAS_BIAS:
        out = out + tl.load(b_ptr + rn, mask=nmask, other=0.0)[None, :]
    # NCHW output
    o_off = ((n_idx[:, None] * CO + rn[None, :]) * OH + oh[:, None]) * OW + ow[:, None]
    tl.store(o_ptr + o_off, out, mask=mmask[:, None] & nmask[None, :])


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
    dev = x.device

    n = x.numel()
    BLOCK = 1024
    n_parts = triton.cdiv(n, BLOCK)
    parts = torch.empty(n_parts, dtype=torch.float32, device=dev)
    sx = torch.empty(1, dtype=torch.float32, device=dev)
    _absmax_partial_kernel[(n_parts,)](x, parts, n, BLOCK=BLOCK)
    _scale_from_partials_kernel[(1,)](parts, sx, n_parts, BLOCK=256)
    qx = torch.empty((N, C, H, W), dtype=torch.int8, device=dev)
    _quant_tensor_kernel[(n_parts,)](x, sx, qx, n, BLOCK=BLOCK)

    K = C * KH * KW
    nw = w.numel()
    nw_parts = triton.cdiv(nw, BLOCK)
    wparts = torch.empty(nw_parts, dtype=torch.float32, device=dev)
    sw1 = torch.empty(1, dtype=torch.float32, device=dev)
    _absmax_partial_kernel[(nw_parts,)](w, wparts, nw, BLOCK=BLOCK)
    _scale_from_partials_kernel[(1,)](wparts, sw1, nw_parts, BLOCK=256)
    qw = torch.empty((CO, K), dtype=torch.int8, device=dev)
    _quant_tensor_kernel[(nw_parts,)](w, sw1, qw, nw, BLOCK=BLOCK)
    sw = sw1.expand(CO).contiguous()  # same scale for every output channel

    out = torch.empty((N, CO, OH, OW), dtype=torch.float32, device=dev)
    has_bias = bias is not None
    b = bias.float().contiguous() if has_bias else sw
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * OH * OW, BLOCK_M), triton.cdiv(CO, BLOCK_N))
    _conv_int8_kernel[grid](qx, qw, sx, sw, b, out, N, C, H, W, CO, OH, OW, KH, KW, SH, SW, PH, PW,
                            HAS_BIAS=has_bias, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
