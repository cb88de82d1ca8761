"""MatrixMultiply/addmm.py variant, common model mistake: plain tl.dot(a, b) without
input_precision, which on NVIDIA GPUs defaults to TF32 for float32 (10-bit mantissa, ~1e-3
relative error). Under TRITON_INTERPRET=1 on the CPU the interpreter computes in full float32,
so this passes on CPU; on a GPU it should fail the 1e-5 contract. Expectation is the GPU truth.
"""
# expect: incorrect
# expect-cpu: ok  (Triton's interpreter computes tl.dot in full float32, so TF32 cannot show on the CPU)
# expect-kernelbenchx: incorrect  (the public tolerance, rtol = atol = 1e-5 without kbx's error bound, fails its float32 rounding on cancelled elements)
import torch
import triton
import triton.language as tl


@triton.jit
def addmm_kernel(a_ptr, b_ptr, c_ptr, y_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                 alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    c = tl.load(c_ptr + rm[:, None] * scm + rn[None, :] * scn, mask=mask, other=0.0)
    res = alpha * acc + beta * c
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], res, mask=mask)


def addmm(input, mat1, mat2, beta=1, alpha=1, out=None):
    M, K = mat1.shape
    N = mat2.shape[1]
    c = input.expand(M, N)
    if beta == 0:
        c = torch.zeros((M, N), dtype=mat1.dtype, device=mat1.device)
    y = torch.empty((M, N), dtype=mat1.dtype, device=mat1.device)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    addmm_kernel[grid](mat1, mat2, c, y, M, N, K, mat1.stride(0), mat1.stride(1),
                       mat2.stride(0), mat2.stride(1), c.stride(0), c.stride(1),
                       alpha, beta, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return y
