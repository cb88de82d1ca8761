"""MatrixMultiply/matmul_fp16.py: batched tiled tl.dot with float32 accumulation, rounded once to
float16. torch.matmul's 1-D and broadcasting rules handled on the host with views/expand.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bid = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_base = a_ptr + bid * sab
    b_base = b_ptr + bid * sbb
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_base + rm[:, None] * sam + ks[None, :] * sak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_base + ks[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + bid * scb + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16), mask=mask)


def matmul_fp16(input, other):
    a, b = input, other
    a_vec = a.dim() == 1
    b_vec = b.dim() == 1
    if a_vec:
        a = a.unsqueeze(0)
    if b_vec:
        b = b.unsqueeze(-1)
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    M, K = a.shape[-2:]
    N = b.shape[-1]
    a3 = a.expand(*batch, M, K).reshape(-1, M, K)
    b3 = b.expand(*batch, K, N).reshape(-1, K, N)
    B = a3.shape[0]
    c = torch.empty((B, M, N), dtype=torch.float16, device=a.device)
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), B)
    _bmm_kernel[grid](a3, b3, c, M, N, K, a3.stride(0), a3.stride(1), a3.stride(2),
                      b3.stride(0), b3.stride(1), b3.stride(2), c.stride(0), c.stride(1), c.stride(2),
                      BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    c = c.reshape(*batch, M, N)
    if a_vec:
        c = c.squeeze(-2)
    if b_vec:
        c = c.squeeze(-1)
    return c
