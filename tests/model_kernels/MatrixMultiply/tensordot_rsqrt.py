"""MatrixMultiply/tensordot_rsqrt.py: the contraction is reduced to a matmul ([M, K] @ [K, N]) by
permuting and reshaping a and b in the wrapper; a tiled tl.dot kernel (BLOCK_K = 32, float32
accumulator) applies rsqrt in its epilogue.
"""
# expect: ok  (tl.dot with input_precision="ieee": plain tl.dot is TF32 on a GPU, addmm__tf32_default)
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_rsqrt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    out = 1.0 / tl.sqrt(acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def tensordot_rsqrt(a, b, dims):
    if isinstance(dims, int):
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    A = a.permute(*fa, *da).contiguous().float()
    B = b.permute(*db, *fb).contiguous().float()
    out_shape = [a.shape[d] for d in fa] + [b.shape[d] for d in fb]
    K = 1
    for d in da:
        K *= a.shape[d]
    M = A.numel() // max(K, 1)
    N = B.numel() // max(K, 1)
    A = A.reshape(M, K)
    B = B.reshape(K, N)
    C = torch.empty((M, N), dtype=torch.float32, device=a.device)
    BM, BN, BK = 32, 32, 32
    _mm_rsqrt_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](A, B, C, M, N, K, BLOCK_M=BM, BLOCK_N=BN,
                                                               BLOCK_K=BK)
    return C.reshape(out_shape)
