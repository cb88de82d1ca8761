"""Quantization/bmm_w8a8.py variant: mat2 is quantised with one scale per batch matrix
(max |mat2[b]| / 127 over all k and n) instead of one per column as the description says
(the activations keep their per-row scales). Columns whose max is below the matrix max get a
coarser grid than the scheme's, so the integer operands differ from the stated scheme's; a
careful judge fails it.

Otherwise the kernel is Quantization/bmm_w8a8.py: kernel 1 quantises strided slices of a batched tensor (rows of
input, columns of mat2, one scale per (batch, slice)): scale = max|x| / 127 in float32, q =
clamp(round_half_even(x / scale), -127, 127) with a zero scale replaced by 1 so all-zero slices
give zeros; round-half-to-even is floor(x + 0.5) with a tie fix. Kernel 2 is a tiled int8 x int8
-> int32 tl.dot per batch, dequantised as float32(acc) * sa[b, m] * sb[b, n]. Operands are read
through their strides (no copies), so non-contiguous inputs work.
"""
# expect: incorrect
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
def _quant_slices_kernel(x_ptr, q_ptr, s_ptr, R, L, xs_b, xs_r, xs_l, qs_b, qs_r, qs_l,
                         BLOCK: tl.constexpr):
    r = tl.program_id(0)
    b = tl.program_id(1)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    x = tl.load(x_ptr + b * xs_b + r * xs_r + offs * xs_l, mask=m, other=0.0)
    scale = tl.max(tl.abs(x), axis=0) / 127.0
    safe = tl.where(scale == 0.0, 1.0, scale)
    q = _round_half_even(x / safe)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + b * qs_b + r * qs_r + offs * qs_l, q.to(tl.int8), mask=m)
    tl.store(s_ptr + b * R + r, scale)


@triton.jit
def _int8_bmm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bz = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_base = a_ptr + bz * M * K
    b_base = b_ptr + bz * K * N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_base + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_base + ks[:, None] * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    sa = tl.load(sa_ptr + bz * M + rm, mask=rm < M, other=0.0)
    sb = tl.load(sb_ptr + bz * N + rn, mask=rn < N, other=0.0)
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(c_ptr + bz * M * N + rm[:, None] * N + rn[None, :], out,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def bmm_w8a8(input, mat2):
    a = input.float()
    w = mat2.float()
    B, M, K = a.shape
    N = w.shape[2]
    dev = a.device
    qa = torch.empty((B, M, K), dtype=torch.int8, device=dev)
    qb = torch.empty((B, K, N), dtype=torch.int8, device=dev)
    sa = torch.empty((B, M), dtype=torch.float32, device=dev)
    sb = torch.empty((B, N), dtype=torch.float32, device=dev)
    BLOCK = triton.next_power_of_2(K)
    # rows of input: slice r = m, element l = k
    _quant_slices_kernel[(M, B)](a, qa, sa, M, K, a.stride(0), a.stride(1), a.stride(2),
                                 M * K, K, 1, BLOCK=BLOCK)
    # one scale per batch matrix of mat2: slice = the whole [K, N] matrix b
    wc = w.contiguous()
    s_mat = torch.empty((B, 1), dtype=torch.float32, device=dev)
    _quant_slices_kernel[(1, B)](wc, qb, s_mat, 1, K * N, K * N, 0, 1, K * N, 0, 1,
                                 BLOCK=triton.next_power_of_2(K * N))
    sb.copy_(s_mat.expand(B, N))
    c = torch.empty((B, M, N), dtype=torch.float32, device=dev)
    BM, BN, BK = 32, 32, 32
    _int8_bmm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN), B)](
        qa, qb, sa, sb, c, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return c
