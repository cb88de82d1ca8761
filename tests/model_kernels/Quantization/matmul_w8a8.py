"""Quantization/matmul_w8a8.py: kernel 1 computes per-row (input) / per-column (weight) absmax
scales and int8 quantisation (round half to even emulated with floor and a tie fix); kernel 2 is a
tiled int8 x int8 -> int32 tl.dot and dequantises with sa[m] * sw[n].
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    r = tl.floor(x + 0.5)
    tie = (r - x) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def _quant_rows_kernel(x_ptr, q_ptr, s_ptr, L, stride_r, stride_c, BLOCK: tl.constexpr):
    # quantises "row" r of a strided view: elements x[r * stride_r + c * stride_c], c < L
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    x = tl.load(x_ptr + r * stride_r + offs * stride_c, mask=m, other=0.0)
    amax = tl.max(tl.abs(x), axis=0)
    scale = amax / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    q = _round_half_even(x / safe)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + r * stride_r + offs * stride_c, q.to(tl.int8), mask=m)
    tl.store(s_ptr + r, scale)


@triton.jit
def _int8_mm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    sa = tl.load(sa_ptr + rm, mask=rm < M, other=0.0)
    sb = tl.load(sb_ptr + rn, mask=rn < N, other=0.0)
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w8a8(input, weight):
    a = input.contiguous().float()
    w = weight.contiguous().float()
    M, K = a.shape
    N = w.shape[1]
    qa = torch.empty((M, K), dtype=torch.int8, device=a.device)
    qw = torch.empty((K, N), dtype=torch.int8, device=a.device)
    sa = torch.empty(M, dtype=torch.float32, device=a.device)
    sw = torch.empty(N, dtype=torch.float32, device=a.device)
    _quant_rows_kernel[(M,)](a, qa, sa, K, K, 1, BLOCK=triton.next_power_of_2(K))
    _quant_rows_kernel[(N,)](w, qw, sw, K, 1, N, BLOCK=triton.next_power_of_2(K))
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    BM, BN, BK = 32, 32, 32
    _int8_mm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](qa, qw, sa, sw, c, M, N, K,
                                                             BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return c
