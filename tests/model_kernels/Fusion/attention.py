"""Fusion/attention.py: FlashAttention-style Triton kernel (Triton tutorial pattern): one program
per (batch*head, query block), loop over key blocks with an online softmax (running max and
sum, rescaled accumulator), float32 accumulation; for float16 inputs P is cast to float16 before
the P @ V tl.dot (as the tutorial does), float32 inputs use input_precision="ieee" throughout.
"""
# expect: ok
import math
import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, S, D, scale,
              sqb, sqs, sqd, skb, sks, skd, svb, svs, svd, sob, sos, sod,
              CAUSAL: tl.constexpr, IS_F16: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + bh * sqb + rm[:, None] * sqs + rd[None, :] * sqd,
                mask=(rm[:, None] < S) & (rd[None, :] < D), other=0.0)
    m_i = tl.full([BLOCK_M], float('-inf'), tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        rn = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + bh * skb + rn[None, :] * sks + rd[:, None] * skd,
                    mask=(rn[None, :] < S) & (rd[:, None] < D), other=0.0)
        if IS_F16:
            s = tl.dot(q, k)
        else:
            s = tl.dot(q, k, input_precision="ieee")
        s = s * scale
        valid = rn[None, :] < S
        if CAUSAL:
            valid = valid & (rn[None, :] <= rm[:, None])
        s = tl.where(valid, s, float('-inf'))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + bh * svb + rn[:, None] * svs + rd[None, :] * svd,
                    mask=(rn[:, None] < S) & (rd[None, :] < D), other=0.0)
        acc = acc * alpha[:, None]
        if IS_F16:
            acc += tl.dot(p.to(tl.float16), v)
        else:
            acc += tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + bh * sob + rm[:, None] * sos + rd[None, :] * sod, out.to(o_ptr.dtype.element_ty),
             mask=(rm[:, None] < S) & (rd[None, :] < D))


def attention(q, k, v, causal=False, softmax_scale=None, *, out=None):
    B, H, S, D = q.shape
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(D)
    q3 = q.reshape(B * H, S, D)
    k3 = k.reshape(B * H, S, D)
    v3 = v.reshape(B * H, S, D)
    o = torch.empty((B * H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_M, BLOCK_N = 32, 32
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    _attn_fwd[grid](q3, k3, v3, o, S, D, float(softmax_scale),
                    q3.stride(0), q3.stride(1), q3.stride(2), k3.stride(0), k3.stride(1), k3.stride(2),
                    v3.stride(0), v3.stride(1), v3.stride(2), o.stride(0), o.stride(1), o.stride(2),
                    CAUSAL=causal, IS_F16=q.dtype == torch.float16,
                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    o = o.reshape(B, H, S, D)
    if out is not None:
        out.copy_(o)
        return out
    return o
