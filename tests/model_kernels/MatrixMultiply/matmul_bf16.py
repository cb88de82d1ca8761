"""MatrixMultiply/matmul_bf16.py: batched tiled tl.dot on bfloat16 tiles with a float32
accumulator, rounded once to bfloat16 on the store. torch.matmul's rules on the host: a 1-D first
operand becomes [1, K], a 1-D second [K, 1] (the added dimension squeezed away at the end); batch
dimensions are broadcast with expand and folded into one (reshape copies only where it must);
strides go to the kernel, so non-contiguous operands are read in place. The bfloat16 tiles go to
tl.dot as they are (on the CPU this needs kbx_worker's fix of the interpreter's bfloat16 tl.dot).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_bf16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
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
    tl.store(c_ptr + bid * scb + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.bfloat16),
             mask=mask)


def matmul_bf16(input, other):
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
    if b.shape[-2] != K:
        raise RuntimeError(f"matmul_bf16: shapes {tuple(input.shape)} and {tuple(other.shape)} "
                           "cannot be multiplied")
    a3 = a.expand(*batch, M, K).reshape(-1, M, K)
    b3 = b.expand(*batch, K, N).reshape(-1, K, N)
    B = a3.shape[0]
    c = torch.empty((B, M, N), dtype=torch.bfloat16, device=a.device)
    if c.numel() > 0:
        BM, BN, BK = 32, 32, 32
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), B)
        _bmm_bf16_kernel[grid](a3, b3, c, M, N, K, a3.stride(0), a3.stride(1), a3.stride(2),
                               b3.stride(0), b3.stride(1), b3.stride(2),
                               c.stride(0), c.stride(1), c.stride(2),
                               BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    c = c.reshape(*batch, M, N)
    if a_vec:
        c = c.squeeze(-2)
    if b_vec:
        c = c.squeeze(-1)
    return c
