"""MatrixMultiply/matrix_multiply_symmetric.py: two launches of one tiled tl.dot kernel
(BLOCK_K = 32, float32 accumulator) with an alpha * acc + beta * D epilogue: C1 = alpha * A @ B +
beta * C is stored in float32, then alpha * C1 @ C1^T + beta * C1 (C1^T read through strides).
"""
# expect: ok  (tl.dot with input_precision="ieee": plain tl.dot is TF32 on a GPU, addmm__tf32_default)
# expect-kernelbenchx: incorrect  (the public tolerance, rtol = atol = 1e-5 without kbx's error bound, fails this correct float32 kernel on cancelled elements, as the public harness would)
import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, d_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, alpha, beta,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    d = tl.load(d_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0).to(tl.float32)
    out = alpha * acc + beta * d
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out.to(c_ptr.dtype.element_ty), mask=mask)


def _gemm(a, b, d, alpha, beta, out_dtype):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=out_dtype, device=a.device)
    BM, BN, BK = 32, 32, 32
    _gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a, b, d, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), float(alpha), float(beta),
        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return c


def matrix_multiply_symmetric(A, B, C, alpha, beta):
    A = A.contiguous()
    B = B.contiguous()
    C = C.contiguous()
    c1 = _gemm(A, B, C, alpha, beta, torch.float32)
    return _gemm(c1, c1.t(), c1, alpha, beta, A.dtype)
