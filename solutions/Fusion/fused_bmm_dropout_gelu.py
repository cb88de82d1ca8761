"""Fusion/fused_bmm_dropout_gelu.py: GELU(dropout(bmm(input1, input2))) as one batched GEMM whose
epilogue draws the dropout mask (Triton's Philox, in registers) and applies the GELU, so the
product is written once instead of being written, read and written again by dropout (which also
writes a mask) and GELU.

Design: grid (M/BM * P/BN grouped by 8 along M for L2 reuse, batch); tiles 128 x 128 x 32 with 8
warps on large products (64 x 64 x 32 and 4 warps below), 3 stages. float32 operands use
tl.dot(input_precision="tf32x3" (each float32 operand split into a TF32 high part and a TF32 remainder, three tensor-core products: ~2^-21 relative per product, within the float32 contract, where plain TF32 at 2^-11 fails it; "ieee" would lower to the much slower FFMA path)), float16 operands the tensor cores with a float32 accumulator. Epilogue:
z is rounded to the output dtype (as bmm's output is), scaled by 1 / (1 - p) and rounded again
(as dropout's is), kept where u >= p with u = (w >> 8) * 2^-24 from tl.randint on the element's
flat output index (P(keep) = 1 - p; one Philox evaluation per element, negligible beside the
GEMM's K loop), then GELU (erf form, or the tanh form as 1 - 2 / (exp(2u) + 1)) in float32 and
one store. training=False or p = 0 skips the draw entirely (deterministic); p = 1 zeroes
everything. Operands are read through their strides (non-contiguous inputs need no copy).
Seed: one 63-bit Philox key per call from the device's default generator (a CUDA generator gives
its seed and offset on the host without a kernel; the offset advances by 4 per call).
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
def _bmm_dropout_gelu_kernel(a_ptr, b_ptr, y_ptr, M, N, K, seed, p, scale,
                             sab, sam, sak, sbb, sbk, sbn, syb, sym, syn,
                             TRAIN: tl.constexpr, TANH: tl.constexpr, F32: tl.constexpr,
                             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                             GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    bat = tl.program_id(1)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % gsize
    pid_n = (pid % group) // gsize
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


def fused_bmm_dropout_gelu(input1, input2, p=0.5, training=True, inplace=False, approximate='none', *,
                           out=None):
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
        if M >= 128 and N >= 128:
            BM, BN, BK, warps = 128, 128, 32, 8
        else:
            BM, BN, BK, warps = 64, 64, 32, 4
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B)
        _bmm_dropout_gelu_kernel[grid](
            input1, input2, y, M, N, K, seed, float(p), scale, *input1.stride(), *input2.stride(),
            *y.stride(), TRAIN=train, TANH=approximate == "tanh", F32=input1.dtype == torch.float32,
            BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps, num_stages=3)
    if out is not None:
        return out.copy_(y)
    return y
