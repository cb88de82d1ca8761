"""Normalization/symmetric_matrix_vector_norm.py: a GEMV kernel (one program per BLOCK_M rows,
looping over BLOCK_N-column chunks with float32 partial sums) computes y = alpha * A x, then
y = y + beta * y; a single program reduces ||y||_p (p = inf, 1, 2 or general via exp/log).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_kernel(a_ptr, x_ptr, y_ptr, n, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, n, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        a = tl.load(a_ptr + rows[:, None] * n + cols[None, :],
                    mask=(rows[:, None] < n) & (cols[None, :] < n), other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    y = alpha * acc
    y = y + beta * y
    tl.store(y_ptr + rows, y, mask=rows < n)


@triton.jit
def _norm_kernel(y_ptr, out_ptr, n, p, P_KIND: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        ay = tl.abs(tl.load(y_ptr + offs, mask=offs < n, other=0.0))
        if P_KIND == 3:
            acc = tl.maximum(acc, ay)
        elif P_KIND == 1:
            acc += ay
        elif P_KIND == 2:
            acc += ay * ay
        else:
            acc += tl.where(ay > 0, tl.exp(p * tl.log(ay)), 0.0)
    if P_KIND == 3:
        r = tl.max(acc, axis=0)
    elif P_KIND == 1:
        r = tl.sum(acc, axis=0)
    elif P_KIND == 2:
        r = tl.sqrt(tl.sum(acc, axis=0))
    else:
        s = tl.sum(acc, axis=0)
        r = tl.where(s > 0, tl.exp(tl.log(s) / p), 0.0)
    tl.store(out_ptr, r)


def symmetric_matrix_vector_norm(A, x, alpha, beta, p=2.0):
    A = A.contiguous()
    x = x.contiguous()
    n = A.shape[0]
    y = torch.empty(n, dtype=torch.float32, device=A.device)
    BM, BN = 32, 64
    _gemv_kernel[(triton.cdiv(n, BM),)](A, x, y, n, float(alpha), float(beta), BLOCK_M=BM, BLOCK_N=BN)
    out = torch.empty((), dtype=torch.float32, device=A.device)
    kind = 3 if p == float('inf') else (1 if p == 1 else (2 if p == 2 else 0))
    _norm_kernel[(1,)](y, out, n, float(p), P_KIND=kind, BLOCK_SIZE=256)
    return out
