"""Quantization/attention_w8a8.py variant: a plain float32 flash-attention kernel (online softmax,
float32 tl.dot for Q K^T and P V) that skips quantisation altogether, i.e. what upstream's
reference computes. The description requires both matrix products on int8 operands (per-token
query/key, per-row P, per-channel value scales), so the result must match the quantised scheme,
which this one misses by the quantisation error (~1e-2 relative). Under the public rules
(cosine >= 0.9, l1_relative <= 0.1, absolute rmse <= 0.15) it passes, as the errata record.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _flash_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, D, sm_scale,
                       sqb, sqs, sqd, skb, sks, skd, svb, svs, svd,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    mmask = rm < S
    dmask = rd < D
    q = tl.load(q_ptr + b * sqb + rm[:, None] * sqs + rd[None, :] * sqd,
                mask=mmask[:, None] & dmask[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for n0 in range(0, S, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        nmask = rn < S
        k = tl.load(k_ptr + b * skb + rn[:, None] * sks + rd[None, :] * skd,
                    mask=nmask[:, None] & dmask[None, :], other=0.0)
        v = tl.load(v_ptr + b * svb + rn[:, None] * svs + rd[None, :] * svd,
                    mask=nmask[:, None] & dmask[None, :], other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        s = tl.where(nmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * S * D + rm[:, None] * D + rd[None, :], out, mask=mmask[:, None] & dmask[None, :])


def attention_w8a8(query, key, value):
    query, key, value = query.float(), key.float(), value.float()
    B, S, D = query.shape
    out = torch.empty((B, S, D), dtype=torch.float32, device=query.device)
    BLOCK_M, BLOCK_N = 32, 64
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _flash_attn_kernel[(B, triton.cdiv(S, BLOCK_M))](
        query, key, value, out, S, D, 1.0 / math.sqrt(D),
        query.stride(0), query.stride(1), query.stride(2), key.stride(0), key.stride(1), key.stride(2),
        value.stride(0), value.stride(1), value.stride(2),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out
