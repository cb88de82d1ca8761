"""MatrixMultiply/symmetric_mm_and_abs_sum.py: tiled A @ A^T with tl.dot (BLOCK_K = 32, float32
accumulator); the epilogue forms alpha * acc + beta * C, takes |.| and writes one partial sum per
tile; a second kernel adds the partials.
"""
# expect: ok  (tl.dot with input_precision="ieee": plain tl.dot is TF32 on a GPU, addmm__tf32_default)
import torch
import triton
import triton.language as tl


@triton.jit
def _syrk_abs_kernel(a_ptr, c_ptr, part_ptr, N, K, alpha, beta, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < N) & (rk[None, :] < K), other=0.0)
        bt = tl.load(a_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, bt, input_precision="ieee")
    mask = (rm[:, None] < N) & (rn[None, :] < N)
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    v = tl.where(mask, tl.abs(alpha * acc + beta * c), 0.0)
    tl.store(part_ptr + pid_m * tl.num_programs(1) + pid_n, tl.sum(tl.sum(v, axis=1), axis=0))


@triton.jit
def _sum_kernel(p_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0))


def symmetric_mm_and_abs_sum(A, C, alpha, beta):
    A = A.contiguous()
    C = C.contiguous()
    N, K = A.shape
    BLOCK = 32
    g = triton.cdiv(N, BLOCK)
    part = torch.empty(g * g, dtype=torch.float32, device=A.device)
    _syrk_abs_kernel[(g, g)](A, C, part, N, K, float(alpha), float(beta), BLOCK=BLOCK, BLOCK_K=32)
    y = torch.empty((), dtype=torch.float32, device=A.device)
    _sum_kernel[(1,)](part, y, g * g, BLOCK_SIZE=64)
    return y
