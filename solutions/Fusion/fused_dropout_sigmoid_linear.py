"""Fusion/fused_dropout_sigmoid_linear.py: dropout(sigmoid(input @ weight^T + bias)) as a float32
GEMM whose epilogue adds the bias, applies the sigmoid and draws the dropout mask (Triton's Philox,
in registers): the linear output is never written and re-read by separate sigmoid and dropout
kernels (eager: addmm, sigmoid, dropout with its mask: three launches, four extra passes).

Design: the input's leading dims are flattened into M rows (a view when they allow it); output
tiles [BM x BN] = [64 x 64] (4 warps, 3 stages; [128 x 128] with 8 warps for K >= 4096), operands
read through their strides (weight is read as its transpose in place, so the non-contiguous input
and weight need no copy), float32 tl.dot with input_precision="tf32x3" (each float32 operand split into a TF32 high part and a TF32 remainder, three tensor-core products: ~2^-21 relative per product, within the float32 contract, where plain TF32 at 2^-11 fails it; "ieee" would lower to the much slower FFMA path). The perf shapes have a small output (1024 x 256: 64 tiles) and a
long K (up to 32768), so K is split into S slices (S chosen to give about 2 programs per SM, slices
of at least 256 or 512; S = 1 for short K): each slice writes a float32 partial tile and a second
kernel sums the S partials in a fixed order (deterministic, no atomics) before the epilogue. With S
= 1 the epilogue runs in the GEMM itself. Epilogue: z = acc + bias, s = 1 / (1 + exp(-z)), kept
where u >= p with u = (w >> 8) * 2^-24 drawn by tl.randint on the flat output index, scaled by 1 /
(1 - p). training=False or p = 0 skips the draw (deterministic); p = 1 zeroes everything. Seed: one
63-bit Philox key per call from the device's default generator (a CUDA generator gives its seed and
offset on the host without a kernel).
"""
# expect: ok
import torch
import triton
import triton.language as tl

_MASK64 = (1 << 64) - 1


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


@triton.jit
def _epilogue(acc, rm, rn, M, N, b_ptr, y_ptr, sym, syn, seed, p, scale, HAS_BIAS: tl.constexpr,
              TRAIN: tl.constexpr):
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    z = acc
    if HAS_BIAS:
        z = z + tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    s = 1.0 / (1.0 + tl.exp(-z))
    if TRAIN:
        flat = rm.to(tl.int64)[:, None] * N + rn[None, :]
        w = tl.randint(seed, flat)
        u = (w.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * 5.960464477539063e-08
        s = tl.where(u >= p, s * scale, 0.0)
    tl.store(y_ptr + rm.to(tl.int64)[:, None] * sym + rn[None, :] * syn, s, mask=mask)


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, part_ptr, M, N, K, k_per, seed, p, scale,
                   sxm, sxk, swn, swk, sym, syn, HAS_BIAS: tl.constexpr, TRAIN: tl.constexpr,
                   SPLIT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    sl = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    k_lo = sl * k_per
    k_hi = tl.minimum(k_lo + k_per, K)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        ks = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * sxm + ks[None, :] * sxk,
                    mask=(rm[:, None] < M) & (ks[None, :] < k_hi), other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * swn + ks[:, None] * swk,
                    mask=(ks[:, None] < k_hi) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32x3")
    if SPLIT:
        tl.store(part_ptr + (sl.to(tl.int64) * M + rm[:, None]) * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))
    else:
        _epilogue(acc, rm, rn, M, N, b_ptr, y_ptr, sym, syn, seed, p, scale, HAS_BIAS, TRAIN)


@triton.jit
def _reduce_epilogue_kernel(part_ptr, b_ptr, y_ptr, M, N, S, seed, p, scale, sym, syn,
                            HAS_BIAS: tl.constexpr, TRAIN: tl.constexpr, BM: tl.constexpr,
                            BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for s in range(0, S):
        acc += tl.load(part_ptr + (s * M + rm.to(tl.int64)[:, None]) * N + rn[None, :], mask=mask,
                       other=0.0)
    _epilogue(acc, rm, rn, M, N, b_ptr, y_ptr, sym, syn, seed, p, scale, HAS_BIAS, TRAIN)


def fused_dropout_sigmoid_linear(input, weight, bias=None, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    K = input.shape[-1]
    N, Kw = weight.shape
    if Kw != K:
        raise RuntimeError(f"fused_dropout_sigmoid_linear: input {list(input.shape)} and weight {list(weight.shape)} do not fit")
    lead = input.shape[:-1]
    x = input.reshape(-1, K)
    M = x.shape[0]
    y = torch.empty((M, N), dtype=torch.result_type(input, weight), device=input.device)
    if M and N:
        train = bool(training) and p > 0.0
        seed = _draw_seed(input.device) if train else 0
        scale = 1.0 / (1.0 - p) if p < 1.0 else 0.0
        # Long K: 128 x 128 tiles (8 warps; twice the operand reuse of a float32 FMA dot) with
        # K split into slices of at least 512; otherwise 64 x 64 (4 warps) and slices of at least
        # 256, so mid-size K still spreads over about 2 programs per SM.
        if K >= 4096:
            BM, BN, BK, warps, min_slice = 128, 128, 32, 8, 512
        else:
            BM, BN, BK, warps, min_slice = 64, 64, 32, 4, 256
        tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
        S = max(1, min(16, 264 // tiles, K // min_slice))
        k_per = triton.cdiv(triton.cdiv(K, S), BK) * BK if K else 0
        S = triton.cdiv(K, k_per) if K else 1
        part = torch.empty((S, M, N), dtype=torch.float32, device=input.device) if S > 1 else y
        bb = bias if bias is not None else y
        _linear_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN), S)](
            x, weight, bb, y, part, M, N, K, max(k_per, 1), seed, float(p), scale, x.stride(0),
            x.stride(1), weight.stride(0), weight.stride(1), y.stride(0), y.stride(1),
            HAS_BIAS=bias is not None, TRAIN=train, SPLIT=S > 1, BM=BM, BN=BN, BK=BK,
            num_warps=warps, num_stages=3)
        if S > 1:
            _reduce_epilogue_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](
                part, bb, y, M, N, S, seed, float(p), scale, y.stride(0), y.stride(1),
                HAS_BIAS=bias is not None, TRAIN=train, BM=64, BN=64, num_warps=4)
    return y.reshape(tuple(lead) + (N,))
