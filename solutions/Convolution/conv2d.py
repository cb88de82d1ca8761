"""Convolution/conv2d.py: NCHW conv2d (stride, padding, dilation, groups, bias) as an implicit GEMM
on the tensor cores at float32 accuracy: one launch that repacks both operands, then one pipelined
GEMM launch; no im2col buffer.

GEMM view per group: M = N * H_out * W_out output pixels, N_g = C_out / groups output channels,
K = kH * kW * C_in/groups, ordered (r, s, c): tap outside, channels inside, so every K slice of a
pixel's row is contiguous in an NHWC copy of the input.

1. Split launch. float32 accuracy from TF32 tensor cores needs each operand split into a TF32 high
   part and a TF32 remainder (x = hi + lo + O(2^-22 |x|)) and three products hi*hi + hi*lo + lo*hi
   (~2^-21 relative per product: the 1e-5 contract holds, where plain TF32 at 2^-11 fails it).
   Triton's input_precision="tf32x3" does that split inside the K loop: a shared -> register ->
   shared round trip and three wgmmas serialised by waits on every slice (17 TFLOP/s here).
   Instead one launch writes the input as NHWC [N, H, W, groups, {hi, lo}, C_pad] and the weight
   as [C_out, kH, kW, {hi, lo}, C_pad] (C_pad = C_in/groups rounded up to BK, zero-filled, so every
   K slice is whole and 16-byte aligned); its first programs take input tiles, the rest weight
   tiles. Rounding to TF32 is integer bit arithmetic (add half an ulp, clear the 13 low bits), so
   the interpreter runs it too. Cost at the largest perf workload: ~210 MB read, ~420 MB written,
   ~0.15 ms beside ~8 ms of GEMM.
2. GEMM. The three products become one K sweep 3x as long: iteration kk walks (tap, C block, part)
   with part 0 = hi*hi, 1 = hi*lo, 2 = lo*hi, each one plain tl.dot(input_precision="tf32") (the
   operands are already TF32, so the tensor cores' truncation loses nothing) on a [BM, BK] slice of
   the NHWC input (rows gathered at (n, oh * stride - pad + r * dil, ow * stride - pad + s * dil),
   out-of-image rows masked to the zero padding) and a [BN, BK] slice of the repacked weight, both
   K-contiguous. On sm_90 that compiles like a dense TF32 GEMM: 16-byte cp.async into
   128-byte-swizzled shared memory, wgmma with one group in flight (warp_group_dot_wait
   pendings = 1). Tiles: 128 x 128 with 8 warps (two warpgroups of 64 x 128) and 3 stages (96 KB,
   two CTAs per SM) when that gives at least two waves over the 132 SMs (M = 25088, C_out = 2048 at
   the largest workload: 3136 tiles, 864 K iterations each); 64 x 128 or 64 x 64 with 4 warps and
   4 stages below; BK = 32 (16 when C_in/groups <= 16); programs grouped by 8 along M so the
   weight slices are shared in L2. The epilogue adds the bias and writes the NCHW output once.

Why it should be near cuDNN: eager runs with TF32 off, so cuDNN does float32 FFMA; the old
kernel's 17 TFLOP/s at 0.166x puts eager near 100 TFLOP/s-equivalent (above FFMA's ~51:
Winograd). Here the largest workload (0.95 TFLOP) is 2.8 TFLOP of dense TF32 tensor-core work
(~400 TFLOP/s on the H200, ~7 ms) with the structure of a plain pipelined Triton GEMM rather than
a per-element gather. Every input is read through its strides (non-contiguous inputs need no
copy); 64-bit pixel offsets. Inf inputs give NaN where eager gives Inf (the hi * lo products of
0 * Inf), as with Triton's tf32x3.
"""
# expect: ok
import torch
import triton
import triton.language as tl


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


@triton.jit
def _tf32_round(v):
    # Nearest TF32 (10 mantissa bits), ties away from zero; truncation where rounding overflows.
    bits = v.to(tl.int32, bitcast=True)
    up = ((bits + 0x1000) & -8192).to(tl.float32, bitcast=True)
    down = (bits & -8192).to(tl.float32, bitcast=True)
    return tl.where(tl.abs(up) < float("inf"), up, down)


@triton.jit
def _split_tf32(v):
    finite = tl.abs(v) < float("inf")
    hi = tl.where(finite, _tf32_round(v), v)
    lo = tl.where(finite, _tf32_round(v - hi), 0.0)
    return hi, lo


@triton.jit
def _split_input(x_ptr, o_ptr, bp, bc, P, HW, W, C_G, C_PAD, CT, sxn, sxc, sxh, sxw,
                 BP: tl.constexpr, BC: tl.constexpr):
    # x [N, C, H, W] (any strides) -> o [N*H*W, groups, {hi, lo}, C_PAD], CT = groups * C_PAD.
    p = bp * BP + tl.arange(0, BP)
    cc = bc * BC + tl.arange(0, BC)
    g = cc // C_PAD
    c = cc % C_PAD
    n = p // HW
    hw = p % HW
    src = n.to(tl.int64) * sxn + (hw // W).to(tl.int64) * sxh + (hw % W).to(tl.int64) * sxw
    pmask = p < P
    v = tl.load(x_ptr + src[:, None] + (g * C_G + c).to(tl.int64)[None, :] * sxc,
                mask=pmask[:, None] & ((c < C_G) & (cc < CT))[None, :], other=0.0)
    hi, lo = _split_tf32(v.to(tl.float32))
    dst = o_ptr + p.to(tl.int64)[:, None] * (2 * CT) + (g * (2 * C_PAD) + c)[None, :]
    smask = pmask[:, None] & (cc < CT)[None, :]
    tl.store(dst, hi, mask=smask)
    tl.store(dst + C_PAD, lo, mask=smask)


@triton.jit
def _split_weight(w_ptr, o_ptr, bq, bc, ROWS, ROWS_G, C_G, C_PAD, s_g, s_o, s_c, s_r, s_s,
                  KH: tl.constexpr, KW: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # Row q = g * ROWS_G + o of o [ROWS, KH, KW, {hi, lo}, C_PAD] is the weight at
    # g * s_g + o * s_o + c * s_c + r * s_r + s * s_s (zero for c >= C_G).
    q = bq * BR + tl.arange(0, BR)
    c = bc * BC + tl.arange(0, BC)
    qmask = q < ROWS
    src = w_ptr + ((q // ROWS_G).to(tl.int64) * s_g + (q % ROWS_G).to(tl.int64) * s_o)[:, None] \
        + c.to(tl.int64)[None, :] * s_c
    dst = o_ptr + q.to(tl.int64)[:, None] * (KH * KW * 2 * C_PAD) + c[None, :]
    lmask = qmask[:, None] & (c < C_G)[None, :]
    smask = qmask[:, None] & (c < C_PAD)[None, :]
    for tap in tl.static_range(KH * KW):
        v = tl.load(src + (tap // KW) * s_r + (tap % KW) * s_s, mask=lmask, other=0.0)
        hi, lo = _split_tf32(v.to(tl.float32))
        tl.store(dst + tap * 2 * C_PAD, hi, mask=smask)
        tl.store(dst + (tap * 2 + 1) * C_PAD, lo, mask=smask)


@triton.jit
def _split_kernel(x_ptr, xs_ptr, w_ptr, ws_ptr, X_PROGS, X_COLS, W_COLS, P, HW, W, C_G, C_PAD,
                  CT, sxn, sxc, sxh, sxw, ROWS, ROWS_G, s_g, s_o, s_c, s_r, s_s,
                  KH: tl.constexpr, KW: tl.constexpr, BP: tl.constexpr, BC: tl.constexpr):
    # One launch for both operands: the first X_PROGS programs split input tiles, the rest weight.
    pid = tl.program_id(0)
    if pid < X_PROGS:
        _split_input(x_ptr, xs_ptr, pid // X_COLS, pid % X_COLS, P, HW, W, C_G, C_PAD, CT, sxn,
                     sxc, sxh, sxw, BP, BC)
    else:
        pid -= X_PROGS
        _split_weight(w_ptr, ws_ptr, pid // W_COLS, pid % W_COLS, ROWS, ROWS_G, C_G, C_PAD, s_g,
                      s_o, s_c, s_r, s_s, KH, KW, BP, BC)


def _split_operands(x, weight, groups, C_G, C_PAD, ROWS_G, w_strides):
    """Both split copies in one launch: input [N*H*W, 2 * groups * C_PAD], weight [ROWS, ...]."""
    N, _, H, W = x.shape
    KH, KW = weight.shape[2:]
    ROWS, CT, P = ROWS_G * groups, groups * C_PAD, N * H * W
    xs = torch.empty((P, 2 * CT), dtype=torch.float32, device=x.device)
    ws = torch.empty((ROWS, KH * KW * 2 * C_PAD), dtype=torch.float32, device=x.device)
    x_cols, w_cols = triton.cdiv(CT, 32), triton.cdiv(C_PAD, 32)
    x_progs = triton.cdiv(P, 64) * x_cols
    progs = x_progs + triton.cdiv(ROWS, 64) * w_cols
    if progs and CT:
        _split_kernel[(progs,)](x, xs, weight, ws, x_progs, x_cols, w_cols, P, H * W, W, C_G,
                                C_PAD, CT, *x.stride(), ROWS, ROWS_G, *w_strides, KH=KH, KW=KW,
                                BP=64, BC=32, num_warps=4)
    return xs, ws


@triton.jit
def _conv2d_gemm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, CO_G, C_PAD, XS, WS, H, W, HO, WO,
                        syn, syc, syh, syw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                        KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                        GROUP_M: tl.constexpr, CHUNK: tl.constexpr):
    # x: the split input, pixel stride XS; w: the split weight, row stride WS = KH*KW*2*C_PAD.
    pid = tl.program_id(0)
    g = tl.program_id(1)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(CO_G, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % gsize
    pid_n = (pid % group) // gsize

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm < M
    nmask = rn < CO_G
    ow = rm % WO
    t = rm // WO
    oh = t % HO
    nb = t // HO
    ih0 = oh * stride_h - pad_h
    iw0 = ow * stride_w - pad_w
    x_g = x_ptr + g * (2 * C_PAD)
    w_rows = w_ptr + (g * CO_G + tl.minimum(rn, CO_G - 1)).to(tl.int64)[:, None] * WS
    nc = C_PAD // BK
    # Two-level accumulation: the tensor cores truncate each addition into their accumulator,
    # so its error grows with the number of products it adds up (on the H200, 3e-2 for the
    # 9216-long K of the largest workload, beyond float32's ordering error). A fresh accumulator
    # per CHUNK steps (128 channels x 3 parts), added into a float32 total, bounds that growth.
    total = tl.zeros([BM, BN], dtype=tl.float32)
    n_steps = KH * KW * nc * 3
    for k0 in range(0, n_steps, CHUNK):
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for kk in range(k0, tl.minimum(k0 + CHUNK, n_steps)):
            part = kk % 3  # 0: hi * hi, 1: hi * lo, 2: lo * hi
            q = kk // 3
            c0 = (q % nc) * BK
            tap = q // nc
            r = tap // KW
            s = tap % KW
            ih = ih0 + r * dil_h
            iw = iw0 + s * dil_w
            ok = mmask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            pix = (nb * H + ih) * W + iw
            a_col = (part == 2).to(tl.int32) * C_PAD + c0
            b_col = (tap * 2 + (part == 1).to(tl.int32)) * C_PAD + c0
            a = tl.load(x_g + pix.to(tl.int64)[:, None] * XS + (a_col + rk)[None, :],
                        mask=ok[:, None], other=0.0)
            b = tl.load(w_rows + (b_col + rk)[None, :])
            acc = tl.dot(a, tl.trans(b), acc, input_precision="tf32")
        total += acc
    acc = total
    co = g * CO_G + rn
    if HAS_BIAS:
        acc += tl.load(b_ptr + co, mask=nmask, other=0.0).to(tl.float32)[None, :]
    y = (y_ptr + (nb.to(tl.int64) * syn + oh.to(tl.int64) * syh + ow.to(tl.int64) * syw)[:, None]
         + co.to(tl.int64)[None, :] * syc)
    tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=mmask[:, None] & nmask[None, :])


def _tiles(M, CO_G, groups, C_G):
    """(BM, BN, BK, warps, stages): 128 x 128 once that fills two waves of the 132 SMs."""
    BK = 16 if C_G <= 16 else 32
    BN = max(16, min(128, triton.next_power_of_2(CO_G)))
    if triton.cdiv(M, 128) * triton.cdiv(CO_G, BN) * groups >= 264 and BN == 128:
        return 128, 128, BK, 8, 3
    if BN == 128 and triton.cdiv(M, 64) * triton.cdiv(CO_G, 128) * groups < 132:
        BN = 64
    return 64, BN, BK, 4, 4


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(padding, str):
        raise NotImplementedError("conv2d: string padding modes are not supported")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    N, C, H, W = x.shape
    CO, C_G, KH, KW = weight.shape
    if C_G * groups != C or CO % groups:
        raise RuntimeError(f"conv2d: input channels {C} and weight {list(weight.shape)} do not fit groups={groups}")
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    HO = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    WO = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    if HO <= 0 or WO <= 0:
        raise RuntimeError(f"conv2d: output size ({HO}, {WO}) is too small")
    y = torch.empty((N, CO, HO, WO), dtype=torch.result_type(x, weight), device=x.device)
    if y.numel() == 0:
        return y.squeeze(0) if unbatched else y
    M, CO_G = N * HO * WO, CO // groups
    BM, BN, BK, warps, stages = _tiles(M, CO_G, groups, C_G)
    C_PAD = triton.cdiv(C_G, BK) * BK
    CT = groups * C_PAD
    swo, swc, swh, sww = weight.stride()
    xs, ws = _split_operands(x, weight, groups, C_G, C_PAD, CO_G, (CO_G * swo, swo, swc, swh, sww))
    grid = (triton.cdiv(M, BM) * triton.cdiv(CO_G, BN), groups)
    _conv2d_gemm_kernel[grid](xs, ws, bias if bias is not None else y, y, M, CO_G, C_PAD, 2 * CT,
                              KH * KW * 2 * C_PAD, H, W, HO, WO, *y.stride(), sh, sw, ph, pw, dh,
                              dw, KH=KH, KW=KW, HAS_BIAS=bias is not None, BM=BM, BN=BN, BK=BK,
                              GROUP_M=8, CHUNK=3 * max(1, 128 // BK), num_warps=warps,
                              num_stages=stages)
    return y.squeeze(0) if unbatched else y
