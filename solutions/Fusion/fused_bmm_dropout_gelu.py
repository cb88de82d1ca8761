"""Fusion/fused_bmm_dropout_gelu.py: GELU(dropout(bmm(input1, input2))) as one batched GEMM whose
epilogue draws the dropout mask (Triton's Philox, in registers) and applies the GELU, so the
product is written once instead of being written, read and written again by dropout (which also
writes a mask) and GELU.

float32 at float32 accuracy on faster tensor cores: every operand x is split once, in memory,
into a high and a low part of 11 significant bits each (x = hi + lo + O(2^-22 |x|)), and the GEMM
sums three products per K slice, lo*hi + hi*lo + hi*hi (lo*lo, ~2^-22 relative, is left out):
~2^-21 relative per product, within the float32 contract where one plain TF32 or fp16 product
(2^-11) fails it. Two split kinds (`config["split"]`):
- "fp16" (default): hi = fp16(x * s), lo = fp16(x * s - hi), with one power-of-two scale s per
  tensor that maps its largest finite magnitude into [2^14, 2^15) (no overflow; lo goes
  subnormal only for elements 2^-17 below the largest, where its absolute error, 2^-25 / s, is
  far below the contract). The H200's fp16 tensor cores run about twice TF32's rate and the
  parts take 2 + 2 bytes. s comes from the device: one launch reduces both operands' largest
  finite magnitude (bit patterns of non-negative floats order like integers: atomic_max on
  int32) into a 2-int buffer that the split launch and the GEMM epilogue read, so the host never
  waits. The epilogue multiplies by 2^-(Ea + Eb) in three same-signed power-of-two steps (no
  spurious overflow or underflow for any finite scale).
- "tf32": hi = TF32(x), lo = TF32(x - hi) stored as float32 (4 + 4 bytes), plain
  input_precision="tf32" dots; no scale needed. "tf32x3" is Triton's built-in split inside the K
  loop (a register round trip and three serialised wgmmas per slice; the previous design, 0.736x).
The split launch writes A as [2, B*M, Kp] (hi plane, lo plane) and B transposed as [2, B*N, Kp],
both K-contiguous and zero-padded to Kp = K rounded up to BK, so the GEMM loads whole 16-byte
aligned slices with no K masks (row indices are clamped, only the store is masked).
GEMM: grid (M/BM * N/BN grouped by GROUP_M along M for L2 reuse, batch). Flat configs (the
default) run a K loop 3x as long with one dot per step, parts cycling, which sm_90 compiles like
a dense GEMM: 16-byte cp.async (or TMA with `tma`) into swizzled shared memory, wgmma with one
group in flight. `fused` configs load four tiles (A hi/lo, B hi/lo) per K step and issue the
three dots, which Triton serialises (a wait after each dot). Accumulation: the tensor cores
truncate each addition into their accumulator, so its error grows with the number of products
(on the H200 the conv2d kernel's single accumulator failed the perf recheck at K = 9216 x 3):
every `chunk` K elements go into a fresh accumulator that is then added into a float32 total
(chunk = 0: one accumulator). The flush is a branch taken once per chunk, the only step that
waits for its wgmma; the fresh zeros are computed from the accumulator (min(|acc|, 0)) so they
stay in the branch (a constant zero becomes a select that waits on every step). 128 x 128
tiles with 8 warps hold accumulator and total in 128 registers a thread (the Philox + erf
epilogue takes the rest, ~254; 128 x 256 spills). Tiles, warps, stages, grouping, chunk, TMA and
the split kind come from `_config`: DEFAULT_CONFIG or `fused_bmm_dropout_gelu_config`'s
`config`. DEFAULT_CONFIG is the fastest over the whole perf sweep of 14 variants on the H200
(tune/gemm_tune.py, 2026-12-03): fp16 split, one dot per K step, 128 x 128 x 64, 4 stages, the B
operands through TMA descriptors: 41.5 ms for the 18 workloads against eager's 105.2 ms (2.53x;
Triton's built-in tf32x3, the previous kernel, 0.75x at S = 2304; TF32 split 1.5-1.7x).

Epilogue: z is rounded to the output dtype (as bmm's output is), scaled by 1 / (1 - p) and
rounded again (as dropout's is), kept where u >= p with u = (w >> 8) * 2^-24 from tl.randint on
the element's flat output index (P(keep) = 1 - p; one Philox evaluation per element, negligible
beside the GEMM), then GELU (erf form, or the tanh form as 1 - 2 / (exp(2u) + 1)) in float32 and
one store. training=False or p = 0 skips the draw entirely (deterministic); p = 1 zeroes
everything. float16 operands skip the split: one tensor-core dot per slice with a float32
accumulator. Operands are read through their strides (non-contiguous inputs need no copy).
Non-finite inputs: the scale ignores Inf/NaN (all-zero or all-non-finite tensors get s = 1);
NaN propagates; an Inf gives Inf or NaN where eager gives Inf (its lo part is 0, and Inf * 0
appears in the partial products wherever the other operand's lo part is exactly 0, as with
Triton's tf32x3).
Seed: one 63-bit Philox key per call from the device's default generator (a CUDA generator gives
its seed and offset on the host without a kernel; the offset advances by 4 per call).
"""
# expect: ok
import torch
import triton
import triton.language as tl

_MASK64 = (1 << 64) - 1

# The default GEMM configuration for float32 operands (see the docstring; tune/gemm_tune.py).
DEFAULT_CONFIG = dict(split="fp16", BM=128, BN=128, BK=64, warps=8, stages=4, fused=False,
                      chunk=128, group_m=8, tma=True)
_SMALL_CONFIG = dict(BM=64, BN=64, BK=32, warps=4, stages=3)


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _draw_seed(device):
    """A fresh 63-bit Philox key from the default generator of `device`."""
    if device.type == "cuda":
        g = torch.cuda.default_generators[device.index if device.index is not None
                                          else torch.cuda.current_device()]
        offset = g.get_offset()
        g.set_offset(offset + 4)
        key = _splitmix64(g.initial_seed() ^ _splitmix64(offset))
    else:
        key = _splitmix64(int(torch.randint(0, 2**62, (1,))))
    return key & ((1 << 63) - 1)


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
def _amax_part(x_ptr, out_ptr, pid, n, d1, d2, s0, s1, s2,
               CONTIG: tl.constexpr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    # Largest finite |x| over elements [pid * BLOCK * ITERS, ...) of a 3-D tensor [., d1, d2].
    m = tl.zeros([BLOCK], dtype=tl.int32)
    for i in tl.static_range(ITERS):
        idx = (pid * (BLOCK * ITERS) + i * BLOCK).to(tl.int64) + tl.arange(0, BLOCK)
        if CONTIG:
            off = idx
        else:
            off = (idx // (d1 * d2)) * s0 + ((idx // d2) % d1) * s1 + (idx % d2) * s2
        v = tl.abs(tl.load(x_ptr + off, mask=idx < n, other=0.0).to(tl.float32))
        v = tl.where(v < float("inf"), v, 0.0)
        m = tl.maximum(m, v.to(tl.int32, bitcast=True))
    tl.atomic_max(out_ptr, tl.max(m, axis=0))


@triton.jit
def _amax_kernel(a_ptr, b_ptr, sc_ptr, A_PROGS, NA, A1, A2, sa0, sa1, sa2, NB, B1, B2,
                 sb0, sb1, sb2, A_CONTIG: tl.constexpr, B_CONTIG: tl.constexpr,
                 BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    if pid < A_PROGS:
        _amax_part(a_ptr, sc_ptr, pid, NA, A1, A2, sa0, sa1, sa2, A_CONTIG, BLOCK, ITERS)
    else:
        _amax_part(b_ptr, sc_ptr + 1, pid - A_PROGS, NB, B1, B2, sb0, sb1, sb2, B_CONTIG, BLOCK,
                   ITERS)


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
def _split_rows(x_ptr, o_ptr, sc_ptr, i, br, bc, R, K, KP, PLANE, sb, sr, sk,
                FP16: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # Tile (br, bc) of x viewed as rows (b, r) by K (strides sb, sr, sk) -> o [2, B*R, KP]: the
    # hi plane, then the lo plane PLANE elements further; zeros in the K padding.
    r = br * BR + tl.arange(0, BR)
    k = bc * BC + tl.arange(0, BC)
    rmask = r < PLANE // KP
    src = x_ptr + ((r // R).to(tl.int64) * sb + (r % R).to(tl.int64) * sr)[:, None] \
        + k.to(tl.int64)[None, :] * sk
    v = tl.load(src, mask=rmask[:, None] & (k < K)[None, :], other=0.0)
    hi, lo = _split(v.to(tl.float32), sc_ptr, i, FP16)
    dst = o_ptr + r.to(tl.int64)[:, None] * KP + k[None, :]
    smask = rmask[:, None] & (k < KP)[None, :]
    tl.store(dst, hi, mask=smask)
    tl.store(dst + PLANE, lo, mask=smask)


@triton.jit
def _split_kernel(a_ptr, b_ptr, as_ptr, bs_ptr, sc_ptr, A_PROGS, A_COLS, B_COLS, M, N, K, KP,
                  A_PLANE, B_PLANE, sab, sam, sak, sbb, sbk, sbn,
                  FP16: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # a [B, M, K] -> as [2, B*M, KP]; b [B, K, N] -> bs [2, B*N, KP] (transposed); zero K padding.
    pid = tl.program_id(0)
    if pid < A_PROGS:
        _split_rows(a_ptr, as_ptr, sc_ptr, 0, pid // A_COLS, pid % A_COLS, M, K, KP, A_PLANE,
                    sab, sam, sak, FP16, BR, BC)
    else:
        pid -= A_PROGS
        _split_rows(b_ptr, bs_ptr, sc_ptr, 1, pid // B_COLS, pid % B_COLS, N, K, KP, B_PLANE,
                    sbb, sbn, sbk, FP16, BR, BC)


# ---- the GEMM and its dropout + GELU epilogue ----

@triton.jit
def _epilogue(acc, y_ptr, bat, rm, rn, M, N, seed, p, scale, syb, sym, syn,
              TRAIN: tl.constexpr, TANH: tl.constexpr):
    z = acc.to(y_ptr.dtype.element_ty).to(tl.float32)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if TRAIN:
        flat = (bat * M + rm)[:, None] * N + rn[None, :]
        w = tl.randint(seed, flat)
        u = (w.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * 5.960464477539063e-08
        z = (z * scale).to(y_ptr.dtype.element_ty).to(tl.float32)
        z = tl.where(u >= p, z, 0.0)
    if TANH:
        t = 0.7978845608028654 * (z + 0.044715 * z * z * z)
        g = 0.5 * z * (1.0 + (1.0 - 2.0 / (tl.exp(2.0 * t) + 1.0)))
    else:
        g = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    y = y_ptr + bat.to(tl.int64) * syb + rm.to(tl.int64)[:, None] * sym + rn[None, :] * syn
    tl.store(y, g.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _fresh(acc):
    # Zeros made from acc (min(|x|, 0) is +0 for every x, Inf and NaN too): a constant zero
    # would become a select outside the flush branch that waits for the wgmma on every K step;
    # computed from acc it stays in the branch, and only flush steps wait.
    return tl.minimum(tl.abs(acc), 0.0)


@triton.jit
def _tile(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    # (pid_m, pid_n) of this program, grouped by GROUP_M along M.
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_m - first_m, GROUP_M)
    return first_m + (pid % group) % gsize, (pid % group) // gsize


@triton.jit
def _load_part(rows, desc, row0, PLANE_ROWS, k0, lo, KP, TMA: tl.constexpr):
    # One [BR, BK] slice of a split operand: hi (lo = 0) or lo (lo = 1) plane.
    if TMA:
        return desc.load([row0 + lo * PLANE_ROWS, k0])
    else:
        return tl.load(rows + (lo * PLANE_ROWS).to(tl.int64) * KP + k0)


@triton.jit
def _mma(a, b, acc, FP16: tl.constexpr):
    if FP16:
        return tl.dot(a, tl.trans(b), acc)
    else:
        return tl.dot(a, tl.trans(b), acc, input_precision="tf32")


@triton.jit
def _bmm_split_kernel(a_ptr, b_ptr, a_desc, b_desc, y_ptr, sc_ptr, M, N, KP, A_ROWS, B_ROWS,
                      seed, p, scale, syb, sym, syn, TRAIN: tl.constexpr, TANH: tl.constexpr,
                      FP16: tl.constexpr, FUSED: tl.constexpr, TMA: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      GROUP_M: tl.constexpr, CHUNK: tl.constexpr):
    # a: split planes [2, A_ROWS = B*M, KP], b: [2, B_ROWS = B*N, KP] (pointers, or TMA
    # descriptors over their [2 * rows, KP] views). CHUNK: K steps per fresh accumulator
    # (fused: BK-wide steps of three dots; otherwise steps of one dot, parts cycling lo*hi,
    # hi*lo, hi*hi); 0: one accumulator.
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
            a_hi = _load_part(a_rows, a_desc, a_row0, A_ROWS, k0, 0, KP, TMA)
            a_lo = _load_part(a_rows, a_desc, a_row0, A_ROWS, k0, 1, KP, TMA)
            b_hi = _load_part(b_rows, b_desc, b_row0, B_ROWS, k0, 0, KP, TMA)
            b_lo = _load_part(b_rows, b_desc, b_row0, B_ROWS, k0, 1, KP, TMA)
            acc = _mma(a_lo, b_hi, acc, FP16)
            acc = _mma(a_hi, b_lo, acc, FP16)
            acc = _mma(a_hi, b_hi, acc, FP16)
            if CHUNK > 0:
                if i % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    else:
        for i in range(3 * nk):
            part = i % 3
            k0 = (i // 3) * BK
            a = _load_part(a_rows, a_desc, a_row0, A_ROWS, k0, (part == 0).to(tl.int32), KP, TMA)
            b = _load_part(b_rows, b_desc, b_row0, B_ROWS, k0, (part == 1).to(tl.int32), KP, TMA)
            acc = _mma(a, b, acc, FP16)
            if CHUNK > 0:
                if i % CHUNK == CHUNK - 1:
                    total += acc
                    acc = _fresh(acc)
    total += acc
    if FP16:
        total = _unscale(total, sc_ptr)
    _epilogue(total, y_ptr, bat, rm, rn, M, N, seed, p, scale, syb, sym, syn, TRAIN, TANH)


@triton.jit
def _bmm_direct_kernel(a_ptr, b_ptr, y_ptr, M, N, K, seed, p, scale,
                       sab, sam, sak, sbb, sbk, sbn, syb, sym, syn,
                       TRAIN: tl.constexpr, TANH: tl.constexpr, F32: tl.constexpr,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       GROUP_M: tl.constexpr):
    # Unsplit operands read through their strides: float16 dots, or Triton's tf32x3.
    bat = tl.program_id(1)
    pid_m, pid_n = _tile(M, N, BM, BN, GROUP_M)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a_ptr + bat.to(tl.int64) * sab + rm.to(tl.int64)[:, None] * sam
    b_base = b_ptr + bat.to(tl.int64) * sbb + rn.to(tl.int64)[None, :] * sbn
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        a = tl.load(a_base + ks[None, :] * sak, mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_base + ks[:, None] * sbk, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if F32:
            acc = tl.dot(a, b, acc, input_precision="tf32x3")
        else:
            acc = tl.dot(a, b, acc)
    _epilogue(acc, y_ptr, bat, rm, rn, M, N, seed, p, scale, syb, sym, syn, TRAIN, TANH)


def _config(B, M, N, K, config=None):
    cfg = dict(DEFAULT_CONFIG)
    if M < 128 or N < 128:
        cfg.update(_SMALL_CONFIG)
    if config:
        cfg.update(config)
    return cfg


def _dims(t):
    return t.numel(), t.shape[1], t.shape[2], t.stride(0), t.stride(1), t.stride(2), t.is_contiguous()


def _gemm_split(input1, input2, y, train, seed, p, scale, tanh, cfg):
    B, M, K = input1.shape
    N = input2.shape[2]
    dev = input1.device
    fp16 = cfg["split"] == "fp16"
    BK = cfg["BK"]
    KP = triton.cdiv(K, BK) * BK
    part = torch.float16 if fp16 else torch.float32
    a_s = torch.empty((2, B * M, KP), dtype=part, device=dev)
    b_s = torch.empty((2, B * N, KP), dtype=part, device=dev)
    sc = (torch.zeros if fp16 else torch.empty)(2, dtype=torch.int32, device=dev)
    if fp16:
        na, a1, a2, sa0, sa1, sa2, ca = _dims(input1)
        nb, b1, b2, sb0, sb1, sb2, cb = _dims(input2)
        block, iters = 1024, 8
        a_progs = triton.cdiv(na, block * iters)
        _amax_kernel[(a_progs + triton.cdiv(nb, block * iters),)](
            input1, input2, sc, a_progs, na, a1, a2, sa0, sa1, sa2, nb, b1, b2, sb0, sb1, sb2,
            A_CONTIG=ca, B_CONTIG=cb, BLOCK=block, ITERS=iters, num_warps=4)
    BR, BC = 64, 64
    a_cols = b_cols = triton.cdiv(KP, BC)
    a_progs = triton.cdiv(B * M, BR) * a_cols
    _split_kernel[(a_progs + triton.cdiv(B * N, BR) * b_cols,)](
        input1, input2, a_s, b_s, sc, a_progs, a_cols, b_cols, M, N, K, KP, B * M * KP,
        B * N * KP, *input1.stride(), *input2.stride(), FP16=fp16, BR=BR, BC=BC, num_warps=4)
    BM, BN = cfg["BM"], cfg["BN"]
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B)
    chunk = cfg["chunk"]
    steps = 0 if not chunk else max(1, chunk // BK) * (1 if cfg["fused"] else 3)
    tma = bool(cfg.get("tma"))
    if tma:
        from triton.tools.tensor_descriptor import TensorDescriptor
        a_desc = TensorDescriptor.from_tensor(a_s.view(2 * B * M, KP), [BM, BK])
        b_desc = TensorDescriptor.from_tensor(b_s.view(2 * B * N, KP), [BN, BK])
    else:
        a_desc = b_desc = None
    extra = {"maxnreg": cfg["maxnreg"]} if cfg.get("maxnreg") else {}
    _bmm_split_kernel[grid](
        a_s, b_s, a_desc, b_desc, y, sc, M, N, KP, B * M, B * N, seed, p, scale, *y.stride(),
        TRAIN=train, TANH=tanh, FP16=fp16, FUSED=bool(cfg["fused"]), TMA=tma, BM=BM, BN=BN,
        BK=BK, GROUP_M=cfg["group_m"], CHUNK=steps, num_warps=cfg["warps"],
        num_stages=cfg["stages"], **extra)


def _gemm_direct(input1, input2, y, train, seed, p, scale, tanh, cfg):
    B, M, K = input1.shape
    N = input2.shape[2]
    BM, BN = cfg["BM"], cfg["BN"]
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B)
    _bmm_direct_kernel[grid](
        input1, input2, y, M, N, K, seed, p, scale, *input1.stride(), *input2.stride(),
        *y.stride(), TRAIN=train, TANH=tanh, F32=input1.dtype == torch.float32, BM=BM, BN=BN,
        BK=32 if cfg["BK"] > 32 else cfg["BK"], GROUP_M=cfg["group_m"],
        num_warps=cfg["warps"], num_stages=cfg["stages"])


def fused_bmm_dropout_gelu_config(input1, input2, p=0.5, training=True, inplace=False,
                                  approximate='none', *, out=None, config=None):
    """The entry point with an explicit GEMM configuration (keys of DEFAULT_CONFIG)."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    B, M, K = input1.shape
    N = input2.shape[2]
    if input2.shape[0] != B or input2.shape[1] != K:
        raise RuntimeError(f"fused_bmm_dropout_gelu: {list(input1.shape)} and {list(input2.shape)} do not multiply")
    if input1.dtype != input2.dtype:
        raise RuntimeError("fused_bmm_dropout_gelu: input1 and input2 must have the same dtype")
    y = torch.empty((B, M, N), dtype=input1.dtype, device=input1.device)
    if y.numel():
        train = bool(training) and p > 0.0
        seed = _draw_seed(input1.device) if train else 0
        scale = 1.0 / (1.0 - p) if p < 1.0 else 0.0
        cfg = _config(B, M, N, K, config)
        tanh = approximate == "tanh"
        if input1.dtype == torch.float32 and K > 0 and cfg["split"] in ("fp16", "tf32"):
            _gemm_split(input1, input2, y, train, seed, float(p), scale, tanh, cfg)
        else:
            _gemm_direct(input1, input2, y, train, seed, float(p), scale, tanh, cfg)
    if out is not None:
        return out.copy_(y)
    return y


def fused_bmm_dropout_gelu(input1, input2, p=0.5, training=True, inplace=False, approximate='none', *,
                           out=None):
    return fused_bmm_dropout_gelu_config(input1, input2, p, training, inplace, approximate, out=out)
