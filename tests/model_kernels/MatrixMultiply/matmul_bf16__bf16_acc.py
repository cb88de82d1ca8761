"""MatrixMultiply/matmul_bf16.py variant that keeps the running sum in bfloat16 ("the inputs and
output are bf16 anyway"): each K block's tl.dot is float32, but acc = (acc + partial) is rounded
to bfloat16 after every block of 32. With K = 1024 that is 32 roundings of the partial sums, each
up to half a bfloat16 ulp (2^-9 relative), so results land several ulps from the correctly
rounded product. The description says accumulate in float32 and round once; rtol = 2^-7 admits
one ulp.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bid = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.bfloat16)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + bid * sab + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bid * sbb + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        partial = tl.dot(a, b)
        acc = (acc.to(tl.float32) + partial).to(tl.bfloat16)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + bid * M * N + rm[:, None] * N + rn[None, :], acc, mask=mask)


def matmul_bf16(input, other):
    a, b = input, other
    a_vec, b_vec = a.dim() == 1, b.dim() == 1
    if a_vec:
        a = a.unsqueeze(0)
    if b_vec:
        b = b.unsqueeze(-1)
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    M, K = a.shape[-2:]
    N = b.shape[-1]
    a3 = a.expand(*batch, M, K).reshape(-1, M, K)
    b3 = b.expand(*batch, K, N).reshape(-1, K, N)
    c = torch.empty((a3.shape[0], M, N), dtype=torch.bfloat16, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32), a3.shape[0])
    matmul_kernel[grid](a3, b3, c, M, N, K, a3.stride(0), a3.stride(1), a3.stride(2),
                        b3.stride(0), b3.stride(1), b3.stride(2), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    c = c.reshape(*batch, M, N)
    if a_vec:
        c = c.squeeze(-2)
    if b_vec:
        c = c.squeeze(-1)
    return c
