"""Quantization/linear_w4a16.py variant: a plain float16 GEMM (float32 accumulation) plus bias that
uses the float16 weight as given, i.e. upstream's F.linear reference, never quantising it to int4.
The description makes the group-wise symmetric int4 weight (scale max|w_group| / 7, round half to
even, clamp +-7) part of the result, so the output must match the quantised scheme; with only 15
levels per group this one is off by ~10% of the output.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, o_ptr, M, N, K, sxm, sxk, swn, swk,
                   HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rm[:, None] * sxm + rk[None, :] * sxk, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * swn + rk[:, None] * swk, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w, out_dtype=tl.float32)
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear_w4a16(input, weight, bias=None):
    N, K = weight.shape
    lead = input.shape[:-1]
    x = input.reshape(-1, K).to(torch.float16)
    w = weight.to(torch.float16)
    M = x.shape[0]
    out = torch.empty((M, N), dtype=torch.float16, device=input.device)
    has_bias = bias is not None
    b = bias.contiguous() if has_bias else out
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 64))
    _linear_kernel[grid](x, w, b, out, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                         HAS_BIAS=has_bias, BLOCK_M=16, BLOCK_N=64, BLOCK_K=32)
    return out.reshape(*lead, N)
