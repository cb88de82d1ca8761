"""Quantization/attention_w8a8.py variant, a GPU-only mistake: the head dimension padded to at least
16, which an int8 tl.dot (K >= 32 on a GPU) does not compile for; otherwise attention_w8a8.py.
W8A8 attention in three Triton kernels. Kernel 1 quantises query
and key per token (one absmax / 127 scale per [b, s, :] row, x / s in float32, round half to even
via floor and an exact fractional-part test, clamp to +-127); kernel 2 quantises value per channel
(one scale per [b, :, d] column). Kernel 3 takes a block of query rows per program: pass 1 runs
int8 x int8 -> int32 tl.dot over all key blocks and keeps an online softmax max / sum; pass 2
recomputes the dequantised scores, forms P = exp(s - max) / sum, quantises P with the row scale
max_j P / 127 = (1 / sum) / 127 (the arg-max entry is exactly 1 / sum), and accumulates the int8
P x int8 V product in int32, dequantised with sp[i] * sv[d]. Strided inputs are read through their
strides.
"""
# expect: ok
# expect-cuda: compile_error  (tl.dot on a GPU needs K of at least 32 for int8: the public call with one token of head size 8 does not compile, as under the public harness; Triton's interpreter runs it)
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    d = x - f  # exact for |x| < 2^23
    odd = (f - 2.0 * tl.floor(f * 0.5)) != 0.0
    up = (d > 0.5) | ((d == 0.5) & odd)
    return tl.where(up, f + 1.0, f)


@triton.jit
def _quant_tokens_kernel(x_ptr, q_ptr, s_ptr, R, S, D, sxb, sxs, sxd,
                         BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # rows r = b * S + s of a [B, S, D] strided tensor; q is contiguous [B*S, D] int8
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_D)
    b = rows // S
    s = rows % S
    rmask = rows < R
    mask = rmask[:, None] & (cols[None, :] < D)
    x = tl.load(x_ptr + b[:, None] * sxb + s[:, None] * sxs + cols[None, :] * sxd, mask=mask, other=0.0)
    scale = tl.max(tl.abs(x), axis=1) / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    q = _round_half_even(x / safe[:, None])
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + rows[:, None] * D + cols[None, :], q.to(tl.int8), mask=mask)
    tl.store(s_ptr + rows, scale, mask=rmask)


@triton.jit
def _quant_channels_kernel(x_ptr, q_ptr, s_ptr, S, D, sxb, sxs, sxd,
                           BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    # one scale per (b, d) over the S axis; q is contiguous [B, S, D] int8, s is [B, D]
    b = tl.program_id(0)
    pid_d = tl.program_id(1)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D
    amax = tl.zeros([BLOCK_D], dtype=tl.float32)
    for s0 in range(0, S, BLOCK_S):
        rs = s0 + tl.arange(0, BLOCK_S)
        m = (rs[:, None] < S) & cmask[None, :]
        x = tl.load(x_ptr + b * sxb + rs[:, None] * sxs + cols[None, :] * sxd, mask=m, other=0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x), axis=0))
    scale = amax / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    for s0 in range(0, S, BLOCK_S):
        rs = s0 + tl.arange(0, BLOCK_S)
        m = (rs[:, None] < S) & cmask[None, :]
        x = tl.load(x_ptr + b * sxb + rs[:, None] * sxs + cols[None, :] * sxd, mask=m, other=0.0)
        q = _round_half_even(x / safe[None, :])
        q = tl.minimum(tl.maximum(q, -127.0), 127.0)
        tl.store(q_ptr + b * S * D + rs[:, None] * D + cols[None, :], q.to(tl.int8), mask=m)
    tl.store(s_ptr + b * D + cols, scale, mask=cmask)


@triton.jit
def _attn_int8_kernel(qq_ptr, sq_ptr, qk_ptr, sk_ptr, qv_ptr, sv_ptr, o_ptr, S, D, sqrt_d,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    mmask = rm < S
    dmask = rd < D
    base = b * S * D
    q = tl.load(qq_ptr + base + rm[:, None] * D + rd[None, :], mask=mmask[:, None] & dmask[None, :], other=0)
    sq = tl.load(sq_ptr + b * S + rm, mask=mmask, other=0.0)

    # pass 1: row max and row sum of exp (online)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    for n0 in range(0, S, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        nmask = rn < S
        k = tl.load(qk_ptr + base + rn[:, None] * D + rd[None, :], mask=nmask[:, None] & dmask[None, :], other=0)
        sk = tl.load(sk_ptr + b * S + rn, mask=nmask, other=0.0)
        acc = tl.dot(q, tl.trans(k))  # int32
        scores = acc.to(tl.float32) * sq[:, None] * sk[None, :] / sqrt_d
        scores = tl.where(nmask[None, :], scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=1))
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(scores - m_new[:, None]), axis=1)
        m_i = m_new

    # pass 2: probabilities, per-row int8 quantisation, int8 P @ int8 V
    sp = (1.0 / l_i) / 127.0
    out = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.int32)
    for n0 in range(0, S, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        nmask = rn < S
        k = tl.load(qk_ptr + base + rn[:, None] * D + rd[None, :], mask=nmask[:, None] & dmask[None, :], other=0)
        sk = tl.load(sk_ptr + b * S + rn, mask=nmask, other=0.0)
        acc = tl.dot(q, tl.trans(k))
        scores = acc.to(tl.float32) * sq[:, None] * sk[None, :] / sqrt_d
        scores = tl.where(nmask[None, :], scores, float("-inf"))
        p = tl.exp(scores - m_i[:, None]) / l_i[:, None]
        qp = _round_half_even(p / sp[:, None])
        qp = tl.minimum(tl.maximum(qp, -127.0), 127.0)
        qp = tl.where(nmask[None, :], qp, 0.0).to(tl.int8)
        v = tl.load(qv_ptr + base + rn[:, None] * D + rd[None, :], mask=nmask[:, None] & dmask[None, :], other=0)
        out += tl.dot(qp, v)
    sv = tl.load(sv_ptr + b * D + rd, mask=dmask, other=0.0)
    res = out.to(tl.float32) * sp[:, None] * sv[None, :]
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], res, mask=mmask[:, None] & dmask[None, :])


def attention_w8a8(query, key, value):
    query, key, value = query.float(), key.float(), value.float()
    B, S, D = query.shape
    dev = query.device
    BLOCK_D = max(16, triton.next_power_of_2(D))
    R = B * S
    qq = torch.empty((B, S, D), dtype=torch.int8, device=dev)
    qk = torch.empty((B, S, D), dtype=torch.int8, device=dev)
    qv = torch.empty((B, S, D), dtype=torch.int8, device=dev)
    sq = torch.empty((B, S), dtype=torch.float32, device=dev)
    sk = torch.empty((B, S), dtype=torch.float32, device=dev)
    sv = torch.empty((B, D), dtype=torch.float32, device=dev)
    BLOCK_R = 32
    for x, q, s in ((query, qq, sq), (key, qk, sk)):
        _quant_tokens_kernel[(triton.cdiv(R, BLOCK_R),)](x, q, s, R, S, D, x.stride(0), x.stride(1), x.stride(2),
                                                        BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D)
    BLOCK_S = 64
    _quant_channels_kernel[(B, triton.cdiv(D, BLOCK_D))](value, qv, sv, S, D, value.stride(0), value.stride(1),
                                                         value.stride(2), BLOCK_S=BLOCK_S, BLOCK_D=BLOCK_D)
    out = torch.empty((B, S, D), dtype=torch.float32, device=dev)
    BLOCK_M, BLOCK_N = 32, 64
    _attn_int8_kernel[(B, triton.cdiv(S, BLOCK_M))](qq, sq, qk, sk, qv, sv, out, S, D, math.sqrt(D),
                                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out
