"""Convolution/conv2d.py: NCHW conv2d (stride, padding, dilation, groups, bias) as an implicit GEMM
on the tensor cores at float32 accuracy: a launch that repacks and splits both operands, then one
pipelined GEMM launch; no im2col buffer.

GEMM view per group: M = N * H_out * W_out output pixels, N_g = C_out / groups output channels,
K = kH * kW * C_in/groups, ordered (r, s, c): tap outside, channels inside, so every K slice of a
pixel's row is contiguous in an NHWC copy of the input.

1. Split. float32 accuracy from 11-bit tensor-core inputs needs each operand split into a high
   part and a remainder of 11 significant bits each (x = hi + lo + O(2^-22 |x|)) and three
   products lo*hi + hi*lo + hi*hi (~2^-21 relative per product: the 1e-5 contract holds, where
   one plain TF32 product at 2^-11 fails it). Two split kinds (`config["split"]`):
   - "fp16" (default): hi = fp16(x * s), lo = fp16(x * s - hi) with one power-of-two scale s per
     tensor mapping its largest finite magnitude into [2^14, 2^15) (no overflow; lo goes
     subnormal only for elements 2^-17 below the largest, where its absolute error, 2^-25 / s,
     is far below the contract). The H200's fp16 tensor cores run about twice TF32's rate and
     the parts take 2 + 2 bytes. s comes from the device: one launch reduces both operands'
     largest finite magnitude (bit patterns of non-negative floats order like integers:
     atomic_max on int32) into a 2-int buffer that the split launch and the GEMM epilogue read,
     so the host never waits. The epilogue multiplies by 2^-(Ea + Eb) in three same-signed
     power-of-two steps (no spurious overflow or underflow for any finite scale).
   - "tf32": hi = TF32(x), lo = TF32(x - hi) stored as float32 (integer bit rounding, so the
     interpreter runs it too), plain input_precision="tf32" dots; no scale.
   One launch writes the input as NHWC [N, H, W, groups, {hi, lo}, C_pad] and the weight as
   [C_out, kH, kW, {hi, lo}, C_pad] (C_pad = C_in/groups rounded up to BK, zero-filled, so every
   K slice is whole and 16-byte aligned); its first programs take input tiles, the rest weight
   tiles. Cost at the largest perf workload: ~210 MB read (twice with the fp16 scale pass),
   ~210 MB written (fp16; 420 MB for tf32), against an estimated 5-8 ms of GEMM.
2. GEMM. Each K step takes a [BM, BK] slice of the NHWC input (rows gathered at
   (n, oh * stride - pad + r * dil, ow * stride - pad + s * dil), out-of-image rows masked to the
   zero padding; with no padding no row can leave the image and the loads are unmasked, rows
   past M clamped) and a [BN, BK] slice of the split weight, both K-contiguous (the weight
   optionally through a TMA descriptor). `fused` configs load the four parts per step and issue
   the three dots (which Triton serialises: a wait after each); otherwise the K sweep is 3x as
   long with one dot per step, parts cycling, which sm_90 compiles like a dense GEMM: 16-byte
   cp.async into swizzled shared memory, wgmma with one group in flight. Programs are grouped
   by GROUP_M along M so the weight slices are shared in L2. The epilogue unscales, adds the
   bias and writes the NCHW output once.
   Accumulation: the tensor cores truncate each addition into their accumulator, so its error
   grows with K (on the H200 a single accumulator failed the perf recheck at K = 9216: max abs
   error 3.3e-2 against rtol = atol = 1e-3). Every `chunk` channels of K go into a fresh
   accumulator that is then added into a float32 total; the flush is a branch taken once per
   chunk, the only step that waits for its wgmma (the fresh zeros are computed from the
   accumulator, min(|acc|, 0), so that they stay inside the branch: a constant zero becomes a
   select that waits on every step). The previous design nested a K loop per chunk, which
   compiles to a full drain and refill of the load pipeline per chunk, 72 per tile at the
   largest workload (63.9 TFLOP/s, 0.621x).
3. Winograd F(2x2, 3x3) (`config["winograd"]`, the default; 3x3 kernels with stride 1,
   dilation 1 and one group, other shapes take the implicit GEMM): transformed input tiles
   V = B^T d B and filters U = G g G^T written split (scale exponent lowered by 2: |V| <= 4 max|x|,
   |U| <= 2.25 max|w|), 16 batched split GEMMs [N * tiles, C_in] x [C_in, C_out] (2.25x fewer
   multiplies) into a float32 M [16, tiles, C_out], and an output transform A^T M A + bias. Its
   rounding error is a few times the direct one's (the transforms add and cancel up to 16 terms).
Tiles, warps, stages, grouping, chunk and the split kind come from `_config`: DEFAULT_CONFIG on
the large shapes, smaller tiles below two waves; `conv2d_config` takes an explicit config.
DEFAULT_CONFIG is the fastest of 19 variants on the H200 (tune/gemm_tune.py, 2026-12-03): at the
largest perf workload (N 128, C_in 1024, C_out 2048) eager (cuDNN, TF32 off) 8.40 ms; implicit
GEMM tf32 split 10.6-11.7 ms, fp16 split 5.96-9.46 ms; Winograd fp16 split, fused, 128 x 128 x 64,
3 stages: 3.38 ms (2.48x, max abs error 2.7e-4 against float64, eager's own 4.8e-4); over the
whole sweep (sum of medians) 2.12x against 1.31x for the best implicit GEMM.
Every input is read through its strides (non-contiguous inputs need no copy); 64-bit pixel
offsets. Non-finite inputs: the scale ignores Inf/NaN; NaN propagates; an Inf gives Inf or
NaN where eager gives Inf (its lo part is 0, and Inf * 0 appears in the partial products wherever
the other operand's lo part is exactly 0, as with Triton's tf32x3).
"""
# expect: ok
import torch
import triton
import triton.language as tl

# The GEMM configuration on shapes that fill two waves of 128 x 128 tiles (tune/gemm_tune.py).
DEFAULT_CONFIG = dict(split="fp16", BM=128, BN=128, BK=64, warps=8, stages=3, fused=True,
                      chunk=128, group_m=8, tma=False, winograd=True)


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


# ---- splitting float32 operands ----

@triton.jit
def _pow2(e):
    # 2^e as float32 for integer e in [-126, 127].
    return ((e + 127) << 23).to(tl.float32, bitcast=True)


@triton.jit
def _scale_exp(sc_ptr, i):
    # E with (largest finite |x|) * 2^E in [2^14, 2^15), from its float bits; 0 for an all-zero
    # (or all non-finite) tensor. E is in [-113, 140].
    bits = tl.load(sc_ptr + i)
    e = tl.maximum((bits >> 23) - 127, -126)
    return tl.where(bits == 0, 0, 14 - e)


@triton.jit
def _unscale(acc, sc_ptr, EOFF: tl.constexpr = 0):
    # acc * 2^-(Ea + Eb) in three steps of one sign, each exact unless the result itself
    # overflows or underflows (EOFF: the offset both operands' scales were split with).
    f = -(_scale_exp(sc_ptr, 0) + _scale_exp(sc_ptr, 1) + 2 * EOFF)
    f1 = tl.minimum(tl.maximum(f, -126), 126)
    f2 = tl.minimum(tl.maximum(f - f1, -126), 126)
    return acc * _pow2(f1) * _pow2(f2) * _pow2(f - f1 - f2)


@triton.jit
def _amax_part(x_ptr, out_ptr, pid, n, d1, d2, d3, s0, s1, s2, s3,
               CONTIG: tl.constexpr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    # Largest finite |x| over elements [pid * BLOCK * ITERS, ...) of a 4-D tensor [., d1, d2, d3].
    m = tl.zeros([BLOCK], dtype=tl.int32)
    for i in tl.static_range(ITERS):
        idx = (pid * (BLOCK * ITERS) + i * BLOCK).to(tl.int64) + tl.arange(0, BLOCK)
        if CONTIG:
            off = idx
        else:
            off = (idx // (d1 * d2 * d3)) * s0 + ((idx // (d2 * d3)) % d1) * s1 \
                + ((idx // d3) % d2) * s2 + (idx % d3) * s3
        v = tl.abs(tl.load(x_ptr + off, mask=idx < n, other=0.0).to(tl.float32))
        v = tl.where(v < float("inf"), v, 0.0)
        m = tl.maximum(m, v.to(tl.int32, bitcast=True))
    tl.atomic_max(out_ptr, tl.max(m, axis=0))


@triton.jit
def _amax_kernel(x_ptr, w_ptr, sc_ptr, X_PROGS, NX, X1, X2, X3, sx0, sx1, sx2, sx3, NW, W1, W2,
                 W3, sw0, sw1, sw2, sw3, X_CONTIG: tl.constexpr, W_CONTIG: tl.constexpr,
                 BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    if pid < X_PROGS:
        _amax_part(x_ptr, sc_ptr, pid, NX, X1, X2, X3, sx0, sx1, sx2, sx3, X_CONTIG, BLOCK, ITERS)
    else:
        _amax_part(w_ptr, sc_ptr + 1, pid - X_PROGS, NW, W1, W2, W3, sw0, sw1, sw2, sw3,
                   W_CONTIG, BLOCK, ITERS)


@triton.jit
def _tf32_round(v):
    # Nearest TF32 (10 mantissa bits), ties away from zero; truncation where rounding overflows.
    bits = v.to(tl.int32, bitcast=True)
    up = ((bits + 0x1000) & -8192).to(tl.float32, bitcast=True)
    down = (bits & -8192).to(tl.float32, bitcast=True)
    return tl.where(tl.abs(up) < float("inf"), up, down)


@triton.jit
def _split(v, sc_ptr, i, FP16: tl.constexpr, EOFF: tl.constexpr = 0):
    # (hi, lo) of float32 v: fp16 parts of v * 2^(E + EOFF) (E from the tensor's largest
    # magnitude; EOFF < 0 leaves room for values up to 2^-EOFF times it), or TF32 parts (stored
    # as float32). Non-finite v: hi = v, lo = 0.
    if FP16:
        e = _scale_exp(sc_ptr, i) + EOFF
        e1 = e >> 1
        v = v * _pow2(e1) * _pow2(e - e1)
        finite = tl.abs(v) < float("inf")
        hi = v.to(tl.float16)
        lo = tl.where(finite, v - hi.to(tl.float32), 0.0).to(tl.float16)
    else:
        finite = tl.abs(v) < float("inf")
        hi = tl.where(finite, _tf32_round(v), v)
        lo = tl.where(finite, _tf32_round(v - hi), 0.0)
    return hi, lo


@triton.jit
def _split_input(x_ptr, o_ptr, sc_ptr, bp, bc, P, HW, W, C_G, C_PAD, CT, sxn, sxc, sxh, sxw,
                 FP16: tl.constexpr, BP: tl.constexpr, BC: tl.constexpr):
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
    hi, lo = _split(v.to(tl.float32), sc_ptr, 0, FP16)
    dst = o_ptr + p.to(tl.int64)[:, None] * (2 * CT) + (g * (2 * C_PAD) + c)[None, :]
    smask = pmask[:, None] & (cc < CT)[None, :]
    tl.store(dst, hi, mask=smask)
    tl.store(dst + C_PAD, lo, mask=smask)


@triton.jit
def _split_weight(w_ptr, o_ptr, sc_ptr, bq, bc, ROWS, ROWS_G, C_G, C_PAD, s_g, s_o, s_c, s_r, s_s,
                  KH: tl.constexpr, KW: tl.constexpr, FP16: tl.constexpr, BR: tl.constexpr,
                  BC: tl.constexpr):
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
        hi, lo = _split(v.to(tl.float32), sc_ptr, 1, FP16)
        tl.store(dst + tap * 2 * C_PAD, hi, mask=smask)
        tl.store(dst + (tap * 2 + 1) * C_PAD, lo, mask=smask)


@triton.jit
def _split_kernel(x_ptr, xs_ptr, w_ptr, ws_ptr, sc_ptr, X_PROGS, X_COLS, W_COLS, P, HW, W, C_G,
                  C_PAD, CT, sxn, sxc, sxh, sxw, ROWS, ROWS_G, s_g, s_o, s_c, s_r, s_s,
                  KH: tl.constexpr, KW: tl.constexpr, FP16: tl.constexpr, BP: tl.constexpr,
                  BC: tl.constexpr):
    # One launch for both operands: the first X_PROGS programs split input tiles, the rest weight.
    pid = tl.program_id(0)
    if pid < X_PROGS:
        _split_input(x_ptr, xs_ptr, sc_ptr, pid // X_COLS, pid % X_COLS, P, HW, W, C_G, C_PAD, CT,
                     sxn, sxc, sxh, sxw, FP16, BP, BC)
    else:
        pid -= X_PROGS
        _split_weight(w_ptr, ws_ptr, sc_ptr, pid // W_COLS, pid % W_COLS, ROWS, ROWS_G, C_G, C_PAD,
                      s_g, s_o, s_c, s_r, s_s, KH, KW, FP16, BP, BC)


def _dims4(t):
    return (t.numel(), t.shape[1], t.shape[2], t.shape[3], *t.stride(), t.is_contiguous())


def _split_operands(x, weight, groups, C_G, C_PAD, ROWS_G, w_strides, fp16):
    """Both split copies: input [N*H*W, 2 * groups * C_PAD], weight [ROWS, KH*KW*2*C_PAD], and
    the int32[2] scale buffer (largest finite magnitudes; zeros for the TF32 split)."""
    N, _, H, W = x.shape
    KH, KW = weight.shape[2:]
    ROWS, CT, P = ROWS_G * groups, groups * C_PAD, N * H * W
    part = torch.float16 if fp16 else torch.float32
    xs = torch.empty((P, 2 * CT), dtype=part, device=x.device)
    ws = torch.empty((ROWS, KH * KW * 2 * C_PAD), dtype=part, device=x.device)
    # The scale buffer: zeroed for the fp16 amax reduction, unread by the TF32 split.
    sc = (torch.zeros if fp16 else torch.empty)(2, dtype=torch.int32, device=x.device)
    if fp16:
        block, iters = 1024, 8
        x_progs = triton.cdiv(x.numel(), block * iters)
        _amax_kernel[(x_progs + triton.cdiv(weight.numel(), block * iters),)](
            x, weight, sc, x_progs, *_dims4(x)[:-1], *_dims4(weight)[:-1],
            X_CONTIG=x.is_contiguous(), W_CONTIG=weight.is_contiguous(), BLOCK=block,
            ITERS=iters, num_warps=4)
    x_cols, w_cols = triton.cdiv(CT, 32), triton.cdiv(C_PAD, 32)
    x_progs = triton.cdiv(P, 64) * x_cols
    progs = x_progs + triton.cdiv(ROWS, 64) * w_cols
    if progs and CT:
        _split_kernel[(progs,)](x, xs, weight, ws, sc, x_progs, x_cols, w_cols, P, H * W, W, C_G,
                                C_PAD, CT, *x.stride(), ROWS, ROWS_G, *w_strides, KH=KH, KW=KW,
                                FP16=fp16, BP=64, BC=32, num_warps=4)
    return xs, ws, sc


# ---- the implicit GEMM ----

@triton.jit
def _fresh(acc):
    # Zeros made from acc (min(|x|, 0) is +0 for every x, Inf and NaN too): a constant zero
    # would become a select outside the flush branch that waits for the wgmma on every K step;
    # computed from acc it stays in the branch, and only flush steps wait.
    return tl.minimum(tl.abs(acc), 0.0)


@triton.jit
def _mma(a, b, acc, FP16: tl.constexpr):
    if FP16:
        return tl.dot(a, tl.trans(b), acc)
    else:
        return tl.dot(a, tl.trans(b), acc, input_precision="tf32")


@triton.jit
def _split_mma(a_hi, a_lo, b_hi, b_lo, acc, FP16: tl.constexpr):
    # The split product a b ~ a_lo b_hi + a_hi b_lo + a_hi b_hi, small terms first.
    acc = _mma(a_lo, b_hi, acc, FP16)
    acc = _mma(a_hi, b_lo, acc, FP16)
    return _mma(a_hi, b_hi, acc, FP16)


@triton.jit
def _a_slice(a_rows, q, lo, nc, C_PAD, W, XS, ih0, iw0, ok_m, H, dil_h, dil_w,
             KW: tl.constexpr, BK: tl.constexpr, HAS_PAD: tl.constexpr):
    # [BM, BK] input slice of K step q = (tap, channel block), hi (lo = 0) or lo (lo = 1) part.
    c0 = (q % nc) * BK
    tap = q // nc
    r = tap // KW
    s = tap % KW
    off = (r * dil_h * W + s * dil_w).to(tl.int64) * XS + lo * C_PAD + c0
    if HAS_PAD:
        ih = ih0 + r * dil_h
        iw = iw0 + s * dil_w
        ok = ok_m & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        return tl.load(a_rows + off, mask=ok[:, None], other=0.0)
    else:
        return tl.load(a_rows + off)


@triton.jit
def _b_slice(w_rows, w_desc, w_row0, q, lo, nc, C_PAD, BK: tl.constexpr, TMA: tl.constexpr):
    # [BN, BK] weight slice of K step q, hi or lo part.
    col = ((q // nc) * 2 + lo) * C_PAD + (q % nc) * BK
    if TMA:
        return w_desc.load([w_row0, col])
    else:
        return tl.load(w_rows + col)


@triton.jit
def _tile(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    # (pid_m, pid_n) of this program, grouped by GROUP_M along M (weight slices shared in L2).
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_m - first_m, GROUP_M)
    return first_m + (pid % group) % gsize, (pid % group) // gsize


@triton.jit
def _conv2d_gemm_kernel(x_ptr, w_ptr, w_desc, b_ptr, y_ptr, sc_ptr, M, CO_G, C_PAD, XS, WS, H, W,
                        HO, WO, syn, syc, syh, syw, stride_h, stride_w, pad_h, pad_w, dil_h,
                        dil_w, KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                        HAS_PAD: tl.constexpr, FP16: tl.constexpr, FUSED: tl.constexpr,
                        TMA: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                        GROUP_M: tl.constexpr, CHUNK: tl.constexpr):
    # x: the split input, pixel stride XS; w: the split weight, row stride WS = KH*KW*2*C_PAD
    # (or its TMA descriptor). CHUNK: K steps per fresh accumulator (fused: steps of three
    # dots; otherwise of one dot, parts cycling lo*hi, hi*lo, hi*hi); 0: one accumulator.
    g = tl.program_id(1)
    pid_m, pid_n = _tile(M, CO_G, BM, BN, GROUP_M)

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm < M
    nmask = rn < CO_G
    rmc = tl.minimum(rm, M - 1)
    ow = rmc % WO
    t = rmc // WO
    oh = t % HO
    nb = t // HO
    ih0 = oh * stride_h - pad_h
    iw0 = ow * stride_w - pad_w
    a_rows = x_ptr + g * (2 * C_PAD) + ((nb * H + ih0) * W + iw0).to(tl.int64)[:, None] * XS \
        + rk[None, :]
    w_row0 = g * CO_G + pid_n * BN
    w_rows = w_ptr + (g * CO_G + tl.minimum(rn, CO_G - 1)).to(tl.int64)[:, None] * WS + rk[None, :]
    nc = C_PAD // BK
    n_q = KH * KW * nc
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    total = tl.zeros([BM, BN], dtype=tl.float32)
    if FUSED:
        for q in range(n_q):
            a_hi = _a_slice(a_rows, q, 0, nc, C_PAD, W, XS, ih0, iw0, mmask, H, dil_h, dil_w,
                            KW, BK, HAS_PAD)
            a_lo = _a_slice(a_rows, q, 1, nc, C_PAD, W, XS, ih0, iw0, mmask, H, dil_h, dil_w,
                            KW, BK, HAS_PAD)
            b_hi = _b_slice(w_rows, w_desc, w_row0, q, 0, nc, C_PAD, BK, TMA)
            b_lo = _b_slice(w_rows, w_desc, w_row0, q, 1, nc, C_PAD, BK, TMA)
            acc = _split_mma(a_hi, a_lo, b_hi, b_lo, acc, FP16)
            if CHUNK > 0:
                if q % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    else:
        for i in range(3 * n_q):
            part = i % 3
            q = i // 3
            a = _a_slice(a_rows, q, (part == 0).to(tl.int32), nc, C_PAD, W, XS, ih0, iw0, mmask,
                         H, dil_h, dil_w, KW, BK, HAS_PAD)
            b = _b_slice(w_rows, w_desc, w_row0, q, (part == 1).to(tl.int32), nc, C_PAD, BK, TMA)
            acc = _mma(a, b, acc, FP16)
            if CHUNK > 0:
                if i % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    total += acc
    if FP16:
        total = _unscale(total, sc_ptr)
    co = g * CO_G + rn
    if HAS_BIAS:
        total += tl.load(b_ptr + co, mask=nmask, other=0.0).to(tl.float32)[None, :]
    y = (y_ptr + (nb.to(tl.int64) * syn + oh.to(tl.int64) * syh + ow.to(tl.int64) * syw)[:, None]
         + co.to(tl.int64)[None, :] * syc)
    tl.store(y, total.to(y_ptr.dtype.element_ty), mask=mmask[:, None] & nmask[None, :])


# ---- Winograd F(2x2, 3x3): 3x3 kernels, stride 1, dilation 1, one group ----
# Y = A^T [ (G g G^T) . (B^T d B) ] A per 2x2 output tile, the product summed over input
# channels: 16 GEMMs [T tiles, C_in] x [C_in, C_out] (2.25x fewer multiplies than direct). The
# transformed input V = B^T d B (|V| <= 4 max|x|) and filter U = G g G^T (|U| <= 2.25 max|w|) are
# split as the operands above, with the scale exponent lowered by 2 (EOFF = -2) so the fp16 parts
# cannot overflow; the GEMM writes M [16, T, C_out] in float32 and the output transform adds the
# bias and writes NCHW.

@triton.jit
def _wino_row(x_ptr, base, ih, iw0, ok, H, W, sxh, sxw):
    # Row ih of the 4x4 patches at columns iw0 .. iw0 + 3, times B (d0 - d2, d1 + d2, d2 - d1,
    # d1 - d3); zero outside the image.
    rok = ok & ((ih >= 0) & (ih < H))[:, None]
    row = base + (ih.to(tl.int64) * sxh + iw0.to(tl.int64) * sxw)[:, None]
    d0 = tl.load(x_ptr + row, mask=rok & ((iw0 >= 0) & (iw0 < W))[:, None], other=0.0)
    d1 = tl.load(x_ptr + row + sxw, mask=rok & ((iw0 >= -1) & (iw0 < W - 1))[:, None], other=0.0)
    d2 = tl.load(x_ptr + row + 2 * sxw, mask=rok & ((iw0 >= -2) & (iw0 < W - 2))[:, None],
                 other=0.0)
    d3 = tl.load(x_ptr + row + 3 * sxw, mask=rok & ((iw0 >= -3) & (iw0 < W - 3))[:, None],
                 other=0.0)
    d0 = d0.to(tl.float32)
    d1 = d1.to(tl.float32)
    d2 = d2.to(tl.float32)
    d3 = d3.to(tl.float32)
    return d0 - d2, d1 + d2, d2 - d1, d1 - d3


@triton.jit
def _wino_put(o_ptr, sc_ptr, i, v, xi, rows, cols, R, KP, PLANE, mask, FP16: tl.constexpr):
    # Split v and store it at row xi * R + rows of o [2, 16 * R, KP] (hi plane, lo plane).
    hi, lo = _split(v, sc_ptr, i, FP16, -2)
    dst = o_ptr + (xi * R + rows).to(tl.int64)[:, None] * KP + cols[None, :]
    tl.store(dst, hi, mask=mask)
    tl.store(dst + PLANE, lo, mask=mask)


@triton.jit
def _wino_put_col(o_ptr, sc_ptr, j, r0, r1, r2, r3, rows, cols, R, KP, PLANE, mask,
                  FP16: tl.constexpr):
    # Column j of V = B^T (rows times B): (r0 - r2, r1 + r2, r2 - r1, r1 - r3).
    _wino_put(o_ptr, sc_ptr, 0, r0 - r2, j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(o_ptr, sc_ptr, 0, r1 + r2, 4 + j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(o_ptr, sc_ptr, 0, r2 - r1, 8 + j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(o_ptr, sc_ptr, 0, r1 - r3, 12 + j, rows, cols, R, KP, PLANE, mask, FP16)


@triton.jit
def _wino_input_kernel(x_ptr, v_ptr, sc_ptr, T, TH, TW, C, H, W, pad_h, pad_w, KP, PLANE,
                       sxn, sxc, sxh, sxw, FP16: tl.constexpr, BT: tl.constexpr,
                       BC: tl.constexpr):
    # V [2, 16 * T, KP]: row xi * T + t, column c = (B^T d B)[xi] of tile t's 4x4 patch of
    # channel c; zeros in the K padding.
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    ok = t < T
    tw = t % TW
    th = (t // TW) % TH
    n = t // (TW * TH)
    ih0 = 2 * th - pad_h
    iw0 = 2 * tw - pad_w
    base = n.to(tl.int64)[:, None] * sxn + c.to(tl.int64)[None, :] * sxc
    okc = ok[:, None] & (c < C)[None, :]
    a0, a1, a2, a3 = _wino_row(x_ptr, base, ih0, iw0, okc, H, W, sxh, sxw)
    b0, b1, b2, b3 = _wino_row(x_ptr, base, ih0 + 1, iw0, okc, H, W, sxh, sxw)
    c0, c1, c2, c3 = _wino_row(x_ptr, base, ih0 + 2, iw0, okc, H, W, sxh, sxw)
    d0, d1, d2, d3 = _wino_row(x_ptr, base, ih0 + 3, iw0, okc, H, W, sxh, sxw)
    smask = ok[:, None] & (c < KP)[None, :]
    _wino_put_col(v_ptr, sc_ptr, 0, a0, b0, c0, d0, t, c, T, KP, PLANE, smask, FP16)
    _wino_put_col(v_ptr, sc_ptr, 1, a1, b1, c1, d1, t, c, T, KP, PLANE, smask, FP16)
    _wino_put_col(v_ptr, sc_ptr, 2, a2, b2, c2, d2, t, c, T, KP, PLANE, smask, FP16)
    _wino_put_col(v_ptr, sc_ptr, 3, a3, b3, c3, d3, t, c, T, KP, PLANE, smask, FP16)


@triton.jit
def _wino_g(w_ptr, base, i, mask, sw_r, sw_s):
    # Row i of g times G^T: (g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2).
    g0 = tl.load(w_ptr + base + i * sw_r, mask=mask, other=0.0).to(tl.float32)
    g1 = tl.load(w_ptr + base + i * sw_r + sw_s, mask=mask, other=0.0).to(tl.float32)
    g2 = tl.load(w_ptr + base + i * sw_r + 2 * sw_s, mask=mask, other=0.0).to(tl.float32)
    return g0, 0.5 * (g0 + g1 + g2), 0.5 * (g0 - g1 + g2), g2


@triton.jit
def _wino_filter_col(u_ptr, sc_ptr, j, r0, r1, r2, rows, cols, R, KP, PLANE, mask,
                     FP16: tl.constexpr):
    # Column j of U = G (g G^T): (r0, (r0 + r1 + r2) / 2, (r0 - r1 + r2) / 2, r2).
    _wino_put(u_ptr, sc_ptr, 1, r0, j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(u_ptr, sc_ptr, 1, 0.5 * (r0 + r1 + r2), 4 + j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(u_ptr, sc_ptr, 1, 0.5 * (r0 - r1 + r2), 8 + j, rows, cols, R, KP, PLANE, mask, FP16)
    _wino_put(u_ptr, sc_ptr, 1, r2, 12 + j, rows, cols, R, KP, PLANE, mask, FP16)


@triton.jit
def _wino_filter_kernel(w_ptr, u_ptr, sc_ptr, CO, C, KP, PLANE, sw_o, sw_c, sw_r, sw_s,
                        FP16: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # U [2, 16 * CO, KP]: row xi * CO + k, column c = (G g G^T)[xi] of filter (k, c).
    k = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (k < CO)[:, None] & (c < C)[None, :]
    base = k.to(tl.int64)[:, None] * sw_o + c.to(tl.int64)[None, :] * sw_c
    a0, a1, a2, a3 = _wino_g(w_ptr, base, 0, mask, sw_r, sw_s)
    b0, b1, b2, b3 = _wino_g(w_ptr, base, 1, mask, sw_r, sw_s)
    c0, c1, c2, c3 = _wino_g(w_ptr, base, 2, mask, sw_r, sw_s)
    smask = (k < CO)[:, None] & (c < KP)[None, :]
    _wino_filter_col(u_ptr, sc_ptr, 0, a0, b0, c0, k, c, CO, KP, PLANE, smask, FP16)
    _wino_filter_col(u_ptr, sc_ptr, 1, a1, b1, c1, k, c, CO, KP, PLANE, smask, FP16)
    _wino_filter_col(u_ptr, sc_ptr, 2, a2, b2, c2, k, c, CO, KP, PLANE, smask, FP16)
    _wino_filter_col(u_ptr, sc_ptr, 3, a3, b3, c3, k, c, CO, KP, PLANE, smask, FP16)


@triton.jit
def _bgemm_kernel(a_ptr, b_ptr, a_desc, b_desc, c_ptr, sc_ptr, M, N, KP, A_ROWS, B_ROWS,
                  FP16: tl.constexpr, FUSED: tl.constexpr, TMA: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                  CHUNK: tl.constexpr):
    # c[bat] = a[bat] @ b[bat]^T in float32, c [batches, M, N] contiguous; a: split planes
    # [2, A_ROWS = batches * M, KP], b: [2, B_ROWS = batches * N, KP] (or TMA descriptors over
    # their [2 * rows, KP] views). CHUNK as in _conv2d_gemm_kernel.
    bat = tl.program_id(1)
    pid_m, pid_n = _tile(M, N, BM, BN, GROUP_M)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_row0 = bat * M + pid_m * BM
    b_row0 = bat * N + pid_n * BN
    a_rows = a_ptr + (bat * M + tl.minimum(rm, M - 1)).to(tl.int64)[:, None] * KP + rk[None, :]
    b_rows = b_ptr + (bat * N + tl.minimum(rn, N - 1)).to(tl.int64)[:, None] * KP + rk[None, :]
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    total = tl.zeros([BM, BN], dtype=tl.float32)
    nk = KP // BK
    if FUSED:
        for i in range(nk):
            k0 = i * BK
            a_hi = _plane_slice(a_rows, a_desc, a_row0, A_ROWS, k0, 0, KP, TMA)
            a_lo = _plane_slice(a_rows, a_desc, a_row0, A_ROWS, k0, 1, KP, TMA)
            b_hi = _plane_slice(b_rows, b_desc, b_row0, B_ROWS, k0, 0, KP, TMA)
            b_lo = _plane_slice(b_rows, b_desc, b_row0, B_ROWS, k0, 1, KP, TMA)
            acc = _split_mma(a_hi, a_lo, b_hi, b_lo, acc, FP16)
            if CHUNK > 0:
                if i % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    else:
        for i in range(3 * nk):
            part = i % 3
            k0 = (i // 3) * BK
            a = _plane_slice(a_rows, a_desc, a_row0, A_ROWS, k0, (part == 0).to(tl.int32), KP, TMA)
            b = _plane_slice(b_rows, b_desc, b_row0, B_ROWS, k0, (part == 1).to(tl.int32), KP, TMA)
            acc = _mma(a, b, acc, FP16)
            if CHUNK > 0:
                if i % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    total += acc
    if FP16:
        total = _unscale(total, sc_ptr, -2)
    c = c_ptr + (bat.to(tl.int64) * M + rm)[:, None] * N + rn[None, :]
    tl.store(c, total, mask=(rm < M)[:, None] & (rn < N)[None, :])


@triton.jit
def _plane_slice(rows, desc, row0, PLANE_ROWS, k0, lo, KP, TMA: tl.constexpr):
    # One [BR, BK] slice of a split operand [2, PLANE_ROWS, KP]: hi (lo = 0) or lo (lo = 1).
    if TMA:
        return desc.load([row0 + lo * PLANE_ROWS, k0])
    else:
        return tl.load(rows + (lo * PLANE_ROWS).to(tl.int64) * KP + k0)


@triton.jit
def _wino_out_row(m_ptr, i, rows, cols, T, CO, mask):
    # Row i of M's 4x4 (xi = 4 i + j) times A: (m0 + m1 + m2, m1 - m2 - m3).
    p = m_ptr + rows.to(tl.int64)[:, None] * CO + cols[None, :]
    step = T.to(tl.int64) * CO
    m0 = tl.load(p + (4 * i) * step, mask=mask, other=0.0)
    m1 = tl.load(p + (4 * i + 1) * step, mask=mask, other=0.0)
    m2 = tl.load(p + (4 * i + 2) * step, mask=mask, other=0.0)
    m3 = tl.load(p + (4 * i + 3) * step, mask=mask, other=0.0)
    return m0 + m1 + m2, m1 - m2 - m3


@triton.jit
def _wino_output_kernel(m_ptr, b_ptr, y_ptr, T, TH, TW, CO, HO, WO, syn, syc, syh, syw,
                        HAS_BIAS: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
    # y[n, k, 2 th + i, 2 tw + j] = (A^T M A)[i, j] (+ bias[k]) from M [16, T, CO].
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    k = tl.program_id(1) * BK + tl.arange(0, BK)
    mask = (t < T)[:, None] & (k < CO)[None, :]
    a0, a1 = _wino_out_row(m_ptr, 0, t, k, T, CO, mask)
    b0, b1 = _wino_out_row(m_ptr, 1, t, k, T, CO, mask)
    c0, c1 = _wino_out_row(m_ptr, 2, t, k, T, CO, mask)
    d0, d1 = _wino_out_row(m_ptr, 3, t, k, T, CO, mask)
    bias = tl.zeros([BK], dtype=tl.float32)
    if HAS_BIAS:
        bias = tl.load(b_ptr + k, mask=k < CO, other=0.0).to(tl.float32)
    tw = t % TW
    th = (t // TW) % TH
    n = t // (TW * TH)
    oh = 2 * th
    ow = 2 * tw
    y = y_ptr + (n.to(tl.int64) * syn + oh.to(tl.int64) * syh + ow.to(tl.int64) * syw)[:, None] \
        + k.to(tl.int64)[None, :] * syc
    ty = y_ptr.dtype.element_ty
    r0 = (oh < HO)[:, None]
    r1 = (oh + 1 < HO)[:, None]
    c0m = (ow < WO)[:, None]
    c1m = (ow + 1 < WO)[:, None]
    tl.store(y, (a0 + b0 + c0 + bias[None, :]).to(ty), mask=mask & r0 & c0m)
    tl.store(y + syw, (a1 + b1 + c1 + bias[None, :]).to(ty), mask=mask & r0 & c1m)
    tl.store(y + syh, (b0 - c0 - d0 + bias[None, :]).to(ty), mask=mask & r1 & c0m)
    tl.store(y + syh + syw, (b1 - c1 - d1 + bias[None, :]).to(ty), mask=mask & r1 & c1m)


def _winograd(x, weight, bias, y, ph, pw, cfg):
    """y = conv2d(x, weight, bias, padding=(ph, pw)) for 3x3 kernels, stride 1, dilation 1, one
    group, through Winograd F(2x2, 3x3) (see above)."""
    N, C, H, W = x.shape
    CO = weight.shape[0]
    _, _, HO, WO = y.shape
    TH, TW = triton.cdiv(HO, 2), triton.cdiv(WO, 2)
    T = N * TH * TW
    fp16 = cfg["split"] == "fp16"
    BM, BN, BK = cfg["BM"], cfg["BN"], cfg["BK"]
    KP = triton.cdiv(C, BK) * BK
    part = torch.float16 if fp16 else torch.float32
    dev = x.device
    v = torch.empty((2, 16 * T, KP), dtype=part, device=dev)
    u = torch.empty((2, 16 * CO, KP), dtype=part, device=dev)
    sc = (torch.zeros if fp16 else torch.empty)(2, dtype=torch.int32, device=dev)
    if fp16:
        block, iters = 1024, 8
        x_progs = triton.cdiv(x.numel(), block * iters)
        _amax_kernel[(x_progs + triton.cdiv(weight.numel(), block * iters),)](
            x, weight, sc, x_progs, *_dims4(x)[:-1], *_dims4(weight)[:-1],
            X_CONTIG=x.is_contiguous(), W_CONTIG=weight.is_contiguous(), BLOCK=block,
            ITERS=iters, num_warps=4)
    _wino_input_kernel[(triton.cdiv(T, 16), triton.cdiv(KP, 32))](
        x, v, sc, T, TH, TW, C, H, W, ph, pw, KP, 16 * T * KP, *x.stride(), FP16=fp16, BT=16,
        BC=32, num_warps=4)
    _wino_filter_kernel[(triton.cdiv(CO, 16), triton.cdiv(KP, 32))](
        weight, u, sc, CO, C, KP, 16 * CO * KP, *weight.stride(), FP16=fp16, BR=16, BC=32,
        num_warps=4)
    m = torch.empty((16, T, CO), dtype=torch.float32, device=dev)
    tma = bool(cfg.get("tma"))
    a_desc = b_desc = None
    if tma:
        from triton.tools.tensor_descriptor import TensorDescriptor
        a_desc = TensorDescriptor.from_tensor(v.view(32 * T, KP), [BM, BK])
        b_desc = TensorDescriptor.from_tensor(u.view(32 * CO, KP), [BN, BK])
    chunk = cfg["chunk"]
    steps = 0 if not chunk else max(1, chunk // BK) * (1 if cfg["fused"] else 3)
    extra = {"maxnreg": cfg["maxnreg"]} if cfg.get("maxnreg") else {}
    _bgemm_kernel[(triton.cdiv(T, BM) * triton.cdiv(CO, BN), 16)](
        v, u, a_desc, b_desc, m, sc, T, CO, KP, 16 * T, 16 * CO, FP16=fp16,
        FUSED=bool(cfg["fused"]), TMA=tma, BM=BM, BN=BN, BK=BK, GROUP_M=cfg["group_m"],
        CHUNK=steps, num_warps=cfg["warps"], num_stages=cfg["stages"], **extra)
    _wino_output_kernel[(triton.cdiv(T, 16), triton.cdiv(CO, 64))](
        m, bias if bias is not None else y, y, T, TH, TW, CO, HO, WO, *y.stride(),
        HAS_BIAS=bias is not None, BT=16, BK=64, num_warps=4)
    return y


def _config(M, CO_G, groups, C_G, config=None):
    """The GEMM configuration: DEFAULT_CONFIG when 128 x 128 tiles fill two waves of the 132 SMs,
    smaller tiles below; BK no wider than the channels of a group need; `config` overrides."""
    cfg = dict(DEFAULT_CONFIG)
    BN = max(16, min(128, triton.next_power_of_2(CO_G)))
    if not (triton.cdiv(M, 128) * triton.cdiv(CO_G, 128) * groups >= 264 and BN == 128):
        if BN == 128 and triton.cdiv(M, 64) * triton.cdiv(CO_G, 128) * groups < 132:
            BN = 64
        cfg.update(BM=64, BN=BN, BK=32, warps=4, stages=4)
    if config:
        cfg.update(config)
    cfg["BK"] = max(16, min(cfg["BK"], triton.next_power_of_2(C_G)))
    return cfg


def conv2d_config(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *,
                  config=None):
    """conv2d with an explicit GEMM configuration (keys of DEFAULT_CONFIG override _config's)."""
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
    cfg = _config(M, CO_G, groups, C_G, config)
    if cfg.get("winograd") and KH == 3 and KW == 3 and (sh, sw, dh, dw, groups) == (1, 1, 1, 1, 1):
        _winograd(x, weight, bias, y, ph, pw, cfg)
        return y.squeeze(0) if unbatched else y
    fp16 = cfg["split"] == "fp16"
    BM, BN, BK = cfg["BM"], cfg["BN"], cfg["BK"]
    C_PAD = triton.cdiv(C_G, BK) * BK
    CT = groups * C_PAD
    swo, swc, swh, sww = weight.stride()
    xs, ws, sc = _split_operands(x, weight, groups, C_G, C_PAD, CO_G,
                                 (CO_G * swo, swo, swc, swh, sww), fp16)
    tma = bool(cfg.get("tma"))
    w_desc = None
    if tma:
        from triton.tools.tensor_descriptor import TensorDescriptor
        w_desc = TensorDescriptor.from_tensor(ws, [BN, BK])
    chunk = cfg["chunk"]
    steps = 0 if not chunk else max(1, chunk // BK) * (1 if cfg["fused"] else 3)
    extra = {"maxnreg": cfg["maxnreg"]} if cfg.get("maxnreg") else {}
    grid = (triton.cdiv(M, BM) * triton.cdiv(CO_G, BN), groups)
    _conv2d_gemm_kernel[grid](xs, ws, w_desc, bias if bias is not None else y, y, sc, M, CO_G,
                              C_PAD, 2 * CT, KH * KW * 2 * C_PAD, H, W, HO, WO, *y.stride(), sh,
                              sw, ph, pw, dh, dw, KH=KH, KW=KW, HAS_BIAS=bias is not None,
                              HAS_PAD=ph > 0 or pw > 0, FP16=fp16, FUSED=bool(cfg["fused"]),
                              TMA=tma, BM=BM, BN=BN, BK=BK, GROUP_M=cfg["group_m"], CHUNK=steps,
                              num_warps=cfg["warps"], num_stages=cfg["stages"], **extra)
    return y.squeeze(0) if unbatched else y


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv2d_config(input, weight, bias, stride, padding, dilation, groups)
