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
   ~210 MB written (fp16; 420 MB for tf32), against ~5-8 ms of GEMM.
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
   drained and refilled the load pipeline 72 times per tile (63.9 TFLOP/s, 0.621x).
Tiles, warps, stages, grouping, chunk and the split kind come from `_config` (DEFAULT_CONFIG on
the large shapes, tuned on the H200 with tune/gemm_tune.py; `conv2d_config` takes an explicit
config). Every input is read through its strides (non-contiguous inputs need no copy); 64-bit
pixel offsets. Non-finite inputs: the scale ignores Inf/NaN; NaN propagates; an Inf gives Inf or
NaN where eager gives Inf (its lo part is 0, and Inf * 0 appears in the partial products wherever
the other operand's lo part is exactly 0, as with Triton's tf32x3).
"""
# expect: ok
import torch
import triton
import triton.language as tl

# The GEMM configuration on shapes that fill two waves of 128 x 128 tiles (tune/gemm_tune.py).
DEFAULT_CONFIG = dict(split="fp16", BM=128, BN=128, BK=64, warps=8, stages=4, fused=False,
                      chunk=128, group_m=8, tma=False)


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
def _unscale(acc, sc_ptr):
    # acc * 2^-(Ea + Eb) in three steps of one sign, each exact unless the result itself
    # overflows or underflows.
    f = -(_scale_exp(sc_ptr, 0) + _scale_exp(sc_ptr, 1))
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
def _split(v, sc_ptr, i, FP16: tl.constexpr):
    # (hi, lo) of float32 v: fp16 parts of v * 2^E (E from the tensor's largest magnitude), or
    # TF32 parts (stored as float32). Non-finite v: hi = v, lo = 0.
    if FP16:
        e = _scale_exp(sc_ptr, i)
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
    sc = torch.zeros(2, dtype=torch.int32, device=x.device)
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
    pid = tl.program_id(0)
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
            acc = _mma(a_lo, b_hi, acc, FP16)
            acc = _mma(a_hi, b_lo, acc, FP16)
            acc = _mma(a_hi, b_hi, acc, FP16)
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
