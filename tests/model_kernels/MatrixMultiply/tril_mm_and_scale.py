"""MatrixMultiply/tril_mm_and_scale.py: tiled tl.dot matmul that masks A's loads to the lower
triangle (col <= row) and stops the K loop at the tile's last row; epilogue scales by
alpha then beta.
"""
# expect: ok  (tl.dot with input_precision="ieee": plain tl.dot is TF32 on a GPU, addmm__tf32_default)
import torch
import triton
import triton.language as tl


@triton.jit
def _tril_mm_kernel(a_ptr, b_ptr, c_ptr, N, P, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    k_end = tl.minimum((pid_m + 1) * BLOCK_M, N)
    for k0 in range(0, k_end, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        amask = (rm[:, None] < N) & (rk[None, :] < N) & (rk[None, :] <= rm[:, None])
        a = tl.load(a_ptr + rm[:, None] * N + rk[None, :], mask=amask, other=0.0)
        b = tl.load(b_ptr + rk[:, None] * P + rn[None, :], mask=(rk[:, None] < N) & (rn[None, :] < P), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    out = beta * (alpha * acc)
    tl.store(c_ptr + rm[:, None] * P + rn[None, :], out, mask=(rm[:, None] < N) & (rn[None, :] < P))


def tril_mm_and_scale(A, B, alpha, beta):
    A = A.contiguous()
    B = B.contiguous()
    N = A.shape[0]
    P = B.shape[1]
    C = torch.empty((N, P), dtype=torch.float32, device=A.device)
    BM, BN, BK = 32, 32, 32
    _tril_mm_kernel[(triton.cdiv(N, BM), triton.cdiv(P, BN))](A, B, C, N, P, float(alpha), float(beta),
                                                              BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return C
