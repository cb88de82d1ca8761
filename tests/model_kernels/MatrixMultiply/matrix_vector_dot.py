"""MatrixMultiply/matrix_vector_dot.py: kernel 1 updates y in place (one program per row block,
float32 dot over column blocks), kernel 2 computes dot(y, x) in one program.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_kernel(A_ptr, x_ptr, y_ptr, n, m, sa0, sa1, alpha, beta,
                 BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < n
    acc = tl.zeros([BLOCK_R], dtype=tl.float32)
    for start in range(0, m, BLOCK_C):
        cols = start + tl.arange(0, BLOCK_C)
        cmask = cols < m
        a = tl.load(A_ptr + rows[:, None] * sa0 + cols[None, :] * sa1,
                    mask=rmask[:, None] & cmask[None, :], other=0.0).to(tl.float32)
        xv = tl.load(x_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
        acc += tl.sum(a * xv[None, :], axis=1)
    y = tl.load(y_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    y_new = alpha * acc + beta * y
    tl.store(y_ptr + rows, y_new.to(y_ptr.dtype.element_ty), mask=rmask)


@triton.jit
def _dot_kernel(y_ptr, x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        msk = offs < n
        acc += tl.load(y_ptr + offs, mask=msk, other=0.0).to(tl.float32) * \
            tl.load(x_ptr + offs, mask=msk, other=0.0).to(tl.float32)
    tl.store(out_ptr, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def matrix_vector_dot(A, x, y, alpha, beta):
    n, m = A.shape
    xc = x.contiguous()
    BLOCK_R, BLOCK_C = 32, 64
    _gemv_kernel[(triton.cdiv(n, BLOCK_R),)](A, xc, y, n, m, A.stride(0), A.stride(1),
                                             float(alpha), float(beta), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    out = torch.empty((), dtype=y.dtype, device=y.device)
    _dot_kernel[(1,)](y, xc, out, n, BLOCK=min(1024, triton.next_power_of_2(n)))
    return out
