"""MatrixMultiply/addmm.py, variant: as addmm.py, but the epilogue always loads `input` and adds
beta * input (no special case for beta == 0), as many generated kernels do. Every upstream call
passes (their input is finite); kbx's added case beta0_ignores_nan_input gives NaN * 0 = NaN where
torch.addmm ignores input.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _addmm_kernel(a_ptr, b_ptr, c_ptr, y_ptr, M, N, K,
                  sam, sak, sbk, sbn, scm, scn, sym, syn, alpha, beta,
                  USE_C: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None] * sam + ks[None, :] * sak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    out = alpha * acc
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if USE_C:
        c = tl.load(c_ptr + rm[:, None] * scm + rn[None, :] * scn, mask=mask, other=0.0).to(tl.float32)
        out = out + beta * c
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, out.to(y_ptr.dtype.element_ty), mask=mask)


def addmm(input, mat1, mat2, beta=1, alpha=1, out=None):
    M, K = mat1.shape
    K2, N = mat2.shape
    assert K == K2
    c = input.expand(M, N)
    y = torch.empty((M, N), dtype=mat1.dtype, device=mat1.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _addmm_kernel[grid](mat1, mat2, c, y, M, N, K,
                        mat1.stride(0), mat1.stride(1), mat2.stride(0), mat2.stride(1),
                        c.stride(0), c.stride(1), y.stride(0), y.stride(1),
                        float(alpha), float(beta), USE_C=True,
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    if out is not None:
        out.copy_(y)
        return out
    return y
