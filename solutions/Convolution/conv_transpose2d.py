"""Convolution/conv_transpose2d.py: NCHW transposed conv2d (stride, padding, output_padding,
dilation, groups, bias) as an implicit GEMM in gather form, split by output phase, on the tensor
cores at float32 accuracy: one launch that repacks both operands, one pipelined GEMM launch; no
col2im buffer, no atomics.

Phases: output row oh only meets the taps r with (oh + pad - r * dil) divisible by stride, a set
that depends on oh mod stride alone. A third grid axis runs the stride_h * stride_w output phases
(q_h, q_w); phase q_h holds the rows oh = q_h + i * stride_h, its taps are r = r0 + t * P
(P = stride / gcd(stride, dil), r0 solving r * dil = q_h + pad mod stride: a modular inverse
passed from the host), and tap t reads input row ih = i + IB - t * dil / gcd (IB exact per
phase). So every phase is a plain stride-1 convolution over its taps: the stride-2, 3x3 perf
sweep does 1, 2, 2 or 4 taps per phase instead of 9 masked ones; other dilations and strides use
the same kernel. GEMM view per phase and group: M = N * ceil(H_out / s_h) * ceil(W_out / s_w)
pixels, N_g = C_out / groups channels, K = taps * C_in / groups, ordered (tap, channel).

Precision: float32 accuracy from TF32 tensor cores needs each operand split into a TF32 high part
and a TF32 remainder and three products hi*hi + hi*lo + lo*hi (~2^-21 relative per product: the
exact-reference contract with its error bound holds; plain TF32 at 2^-11 fails it). Triton's
input_precision="tf32x3" splits inside the K loop (a shared -> register -> shared round trip and
three wgmmas serialised by waits per slice). Instead one launch writes the input as NHWC
[N, H, W, groups, {hi, lo}, C_pad] and the weight as [C_out, kH, kW, {hi, lo}, C_pad] (C_pad =
C_in/groups rounded up to BK, zero-filled, so every K slice is whole and 16-byte aligned), rounding
to TF32 with integer bit arithmetic (the interpreter runs it too). The GEMM then sweeps K 3x:
iteration kk walks (tap, C block, part) with part 0 = hi*hi, 1 = hi*lo, 2 = lo*hi, each one plain
tl.dot(input_precision="tf32") on a [BM, BK] NHWC input slice (rows gathered at the phase's input
pixels, out-of-image rows masked to zero) and a [BN, BK] weight slice, both K-contiguous: cp.async
16-byte loads, 128-byte-swizzled shared memory and pipelined wgmma on sm_90, like a dense TF32
GEMM. The epilogue adds the bias and writes the phase's NCHW output pixels once.

Tiles: 64 x 64 with 4 warps and 3 stages (BK = 32, 16 when C_in/groups <= 16): the perf sweep is
small (N = 2, 16x16 -> 32x32, C_in <= 256: 512 pixels per phase), and at C_out = 512 that is
8 x 8 tiles x 4 phases = 256 programs, all resident at once; 128 x 128 with 8 warps only once
that still fills two waves. Why it should be near eager: eager runs with TF32 off (cuDNN's FFMA
dgrad kernels); here the phase split removes the 3/4 of the taps that miss, and each phase is a
tensor-core GEMM with 3x the FLOPs of plain TF32 (~400 TFLOP/s on the H200). The repack is one
extra launch (at the largest workload 5 MB read, 11 MB written: a few microseconds). Every operand is
read through its strides (the non-contiguous input and weight need no copy); 64-bit pixel
offsets. Inf inputs give NaN where eager gives Inf (hi * lo products of 0 * Inf).
"""
# expect: ok
import math

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
def _phase_dim(q, pad, stride, G, P, D, INV, K: tl.constexpr):
    # Output phase q of one spatial dim: first tap r0, tap count, input offset IB of tap 0.
    e = q + pad
    solvable = (e % G) == 0
    r0 = ((e // G) * INV) % P
    nt = tl.where(solvable & (r0 < K), (K - r0 + P - 1) // P, 0)
    base = tl.where(solvable, (e - r0 * (D * G)) // stride, 0)
    return r0, nt, base


@triton.jit
def _conv_t2d_gemm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, CO_G, C_PAD, XS, WS, H, W, HO, WO,
                          syn, syc, syh, syw, stride_h, stride_w, pad_h, pad_w,
                          G_h, P_h, D_h, INV_h, G_w, P_w, D_w, INV_w,
                          KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          GROUP_M: tl.constexpr):
    # x: the split input, pixel stride XS; w: the split weight, row stride WS = KH*KW*2*C_PAD.
    # Per dim: G = gcd(stride, dil), P = stride / G, D = dil / G, INV = (D^-1 mod P).
    g = tl.program_id(1)
    phase = tl.program_id(2)
    qh = phase // stride_w
    qw = phase % stride_w
    HOq = (HO - qh + stride_h - 1) // stride_h
    WOq = (WO - qw + stride_w - 1) // stride_w
    r0, nth, bh = _phase_dim(qh, pad_h, stride_h, G_h, P_h, D_h, INV_h, KH)
    s0, ntw, bw = _phase_dim(qw, pad_w, stride_w, G_w, P_w, D_w, INV_w, KW)
    M = N * HOq * WOq
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(CO_G, BN)
    if pid < num_m * num_n:
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
        j = rm % WOq
        t = rm // WOq
        i = t % HOq
        nb = t // HOq
        ih0 = i + bh
        iw0 = j + bw
        x_g = x_ptr + g * (2 * C_PAD)
        w_rows = w_ptr + (g * CO_G + tl.minimum(rn, CO_G - 1)).to(tl.int64)[:, None] * WS
        nc = C_PAD // BK
        ntw1 = tl.maximum(ntw, 1)
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for kk in range(0, nth * ntw * nc * 3):
            part = kk % 3  # 0: hi * hi, 1: hi * lo, 2: lo * hi
            q = kk // 3
            c0 = (q % nc) * BK
            tap = q // nc
            th = tap // ntw1
            tw = tap % ntw1
            ih = ih0 - th * D_h
            iw = iw0 - tw * D_w
            ok = mmask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            pix = (nb * H + ih) * W + iw
            a_col = (part == 2).to(tl.int32) * C_PAD + c0
            b_tap = (r0 + th * P_h) * KW + s0 + tw * P_w
            b_col = (b_tap * 2 + (part == 1).to(tl.int32)) * C_PAD + c0
            a = tl.load(x_g + pix.to(tl.int64)[:, None] * XS + (a_col + rk)[None, :],
                        mask=ok[:, None], other=0.0)
            b = tl.load(w_rows + (b_col + rk)[None, :])
            acc = tl.dot(a, tl.trans(b), acc, input_precision="tf32")
        co = g * CO_G + rn
        if HAS_BIAS:
            acc += tl.load(b_ptr + co, mask=nmask, other=0.0).to(tl.float32)[None, :]
        oh = qh + i * stride_h
        ow = qw + j * stride_w
        y = (y_ptr + (nb.to(tl.int64) * syn + oh.to(tl.int64) * syh
                      + ow.to(tl.int64) * syw)[:, None] + co.to(tl.int64)[None, :] * syc)
        tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=mmask[:, None] & nmask[None, :])


def _tiles(M, CO_G, groups, C_G):
    """(BM, BN, BK, warps, stages) for M pixels per phase: 128 x 128 once that fills two waves."""
    BK = 16 if C_G <= 16 else 32
    BN = max(16, min(128, triton.next_power_of_2(CO_G)))
    if triton.cdiv(M, 128) * triton.cdiv(CO_G, BN) * groups >= 264 and BN == 128:
        return 128, 128, BK, 8, 3
    return 64, min(BN, 64), BK, 4, 3


def _dim_params(stride, dil):
    """(G, P, D, INV): gcd, stride / G, dil / G and D's inverse mod P."""
    G = math.gcd(stride, dil)
    P, D = stride // G, dil // G
    return G, P, D, pow(D, -1, P) if P > 1 else 0


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    N, C, H, W = x.shape
    CI, CO_G, KH, KW = weight.shape
    if CI != C or C % groups:
        raise RuntimeError(f"conv_transpose2d: input channels {C} and weight {list(weight.shape)} do not fit groups={groups}")
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    (oph, opw), (dh, dw) = _pair(output_padding), _pair(dilation)
    if oph >= max(sh, dh) or opw >= max(sw, dw):
        raise RuntimeError("conv_transpose2d: output padding must be smaller than either stride or dilation")
    HO = (H - 1) * sh - 2 * ph + dh * (KH - 1) + oph + 1
    WO = (W - 1) * sw - 2 * pw + dw * (KW - 1) + opw + 1
    if HO <= 0 or WO <= 0:
        raise RuntimeError(f"conv_transpose2d: output size ({HO}, {WO}) is too small")
    CO, C_G = CO_G * groups, C // groups
    y = torch.empty((N, CO, HO, WO), dtype=torch.result_type(x, weight), device=x.device)
    if y.numel() == 0:
        return y.squeeze(0) if unbatched else y
    M0 = N * triton.cdiv(HO, sh) * triton.cdiv(WO, sw)  # phase (0, 0) has the most pixels
    BM, BN, BK, warps, stages = _tiles(M0, CO_G, groups, C_G)
    C_PAD = triton.cdiv(C_G, BK) * BK
    sw0, sw1, sw2, sw3 = weight.stride()
    xs, ws = _split_operands(x, weight, groups, C_G, C_PAD, CO_G, (C_G * sw0, sw1, sw0, sw2, sw3))
    grid = (triton.cdiv(M0, BM) * triton.cdiv(CO_G, BN), groups, sh * sw)
    _conv_t2d_gemm_kernel[grid](xs, ws, bias if bias is not None else y, y, N, CO_G, C_PAD,
                                2 * groups * C_PAD, KH * KW * 2 * C_PAD, H, W, HO, WO,
                                *y.stride(), sh, sw, ph, pw, *_dim_params(sh, dh),
                                *_dim_params(sw, dw), KH=KH, KW=KW, HAS_BIAS=bias is not None,
                                BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps,
                                num_stages=stages)
    return y.squeeze(0) if unbatched else y
