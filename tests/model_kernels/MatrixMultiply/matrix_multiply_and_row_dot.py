"""MatrixMultiply/matrix_multiply_and_row_dot.py: only rows 0 and 1 of C1 are needed; one program
per BLOCK_P column chunk computes both rows of alpha * A[:2] @ B + beta * C[:2] with a K-blocked
float32 loop and writes the chunk's partial dot product; a second kernel sums the partials.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _rows_kernel(a_ptr, b_ptr, c_ptr, part_ptr, M, P, alpha, beta, BLOCK_K: tl.constexpr,
                 BLOCK_P: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_P + tl.arange(0, BLOCK_P)
    cm = cols < P
    r0 = tl.zeros([BLOCK_P], dtype=tl.float32)
    r1 = tl.zeros([BLOCK_P], dtype=tl.float32)
    for k0 in range(0, M, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        km = ks < M
        a0 = tl.load(a_ptr + ks, mask=km, other=0.0).to(tl.float32)
        a1 = tl.load(a_ptr + M + ks, mask=km, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + ks[:, None] * P + cols[None, :], mask=km[:, None] & cm[None, :], other=0.0).to(tl.float32)
        r0 += tl.sum(a0[:, None] * b, axis=0)
        r1 += tl.sum(a1[:, None] * b, axis=0)
    c0 = tl.load(c_ptr + cols, mask=cm, other=0.0).to(tl.float32)
    c1 = tl.load(c_ptr + P + cols, mask=cm, other=0.0).to(tl.float32)
    r0 = alpha * r0 + beta * c0
    r1 = alpha * r1 + beta * c1
    tl.store(part_ptr + pid, tl.sum(tl.where(cm, r0 * r1, 0.0), axis=0))


@triton.jit
def _sum_kernel(p_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    v = tl.load(p_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(v, axis=0).to(y_ptr.dtype.element_ty))


def matrix_multiply_and_row_dot(A, B, alpha, beta, C):
    A = A.contiguous()
    B = B.contiguous()
    C = C.contiguous()
    M = A.shape[1]
    P = B.shape[1]
    BLOCK_P = 32
    nb = triton.cdiv(P, BLOCK_P)
    part = torch.empty(nb, dtype=torch.float32, device=A.device)
    _rows_kernel[(nb,)](A, B, C, part, M, P, float(alpha), float(beta), BLOCK_K=32, BLOCK_P=BLOCK_P)
    y = torch.empty((), dtype=A.dtype, device=A.device)
    _sum_kernel[(1,)](part, y, nb, BLOCK_SIZE=triton.next_power_of_2(nb))
    return y
