"""Quantization/linear_w4a16.py: W4A16 linear. Kernel 1 quantises the weight group-wise (one program
per output row, looping over its groups of G = min(128, D_in) input features): float32 scale
s = max|w_group| / 7, q = clamp(round_half_even(w / s), -7, 7) stored as int8 (an all-zero group
has scale 0 and zeros). Kernel 2 is a tiled GEMM that walks the K axis group by group: within a
group it accumulates float16 activations x float16 integer weights (exact small integers) with a
float32-accumulating tl.dot, then adds that partial sum times the group's scale per output column;
bias is added in float32 and the result rounded once to float16. Leading dims are flattened
(non-contiguous inputs go through strides).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    d = x - f
    odd = (f - 2.0 * tl.floor(f * 0.5)) != 0.0
    up = (d > 0.5) | ((d == 0.5) & odd)
    return tl.where(up, f + 1.0, f)


@triton.jit
def _quant_w4_kernel(w_ptr, q_ptr, s_ptr, K, G, n_groups, swn, swk, BLOCK_G: tl.constexpr):
    n = tl.program_id(0)
    offs = tl.arange(0, BLOCK_G)
    m = offs < G
    for g in range(0, n_groups):
        k = g * G + offs
        w = tl.load(w_ptr + n * swn + k * swk, mask=m, other=0.0).to(tl.float32)
        scale = tl.max(tl.abs(w), axis=0) / 7.0
        safe = tl.where(scale == 0.0, 1.0, scale)
        q = _round_half_even(w / safe)
        q = tl.minimum(tl.maximum(q, -7.0), 7.0)
        tl.store(q_ptr + n * K + k, q.to(tl.int8), mask=m)
        tl.store(s_ptr + n * n_groups + g, scale)


@triton.jit
def _w4a16_gemm_kernel(x_ptr, q_ptr, s_ptr, b_ptr, o_ptr, M, N, K, G, n_groups, sxm, sxk,
                       HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mmask = rm < M
    nmask = rn < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for g in range(0, n_groups):
        part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for kk in range(0, G, BLOCK_K):
            rkg = kk + tl.arange(0, BLOCK_K)
            kmask = rkg < G
            rk = g * G + rkg
            x = tl.load(x_ptr + rm[:, None] * sxm + rk[None, :] * sxk, mask=mmask[:, None] & kmask[None, :], other=0.0)
            q = tl.load(q_ptr + rn[None, :] * K + rk[:, None], mask=kmask[:, None] & nmask[None, :], other=0)
            part += tl.dot(x, q.to(tl.float16), out_dtype=tl.float32)
        s = tl.load(s_ptr + rn * n_groups + g, mask=nmask, other=0.0)
        acc += part * s[None, :]
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=nmask, other=0.0).to(tl.float32)[None, :]
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=mmask[:, None] & nmask[None, :])


def linear_w4a16(input, weight, bias=None):
    N, K = weight.shape
    G = min(128, K)
    assert K % G == 0, "D_in must be a multiple of the group size"
    n_groups = K // G
    lead = input.shape[:-1]
    x = input.reshape(-1, K).to(torch.float16)  # a view where possible; strides handled below
    M = x.shape[0]
    dev = input.device
    q = torch.empty((N, K), dtype=torch.int8, device=dev)
    s = torch.empty((N, n_groups), dtype=torch.float32, device=dev)
    _quant_w4_kernel[(N,)](weight, q, s, K, G, n_groups, weight.stride(0), weight.stride(1),
                           BLOCK_G=triton.next_power_of_2(G))
    out = torch.empty((M, N), dtype=torch.float16, device=dev)
    has_bias = bias is not None
    b = bias.contiguous() if has_bias else out
    BLOCK_M, BLOCK_N, BLOCK_K = 16, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _w4a16_gemm_kernel[grid](x, q, s, b, out, M, N, K, G, n_groups, x.stride(0), x.stride(1),
                             HAS_BIAS=has_bias, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out.reshape(*lead, N)
