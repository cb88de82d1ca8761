"""LinearAlgebra/solve_and_add_scaled_vector.py: back substitution in Triton, one program per
right-hand-side column; the solution is kept in a register vector and updated with masks.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _backsub_kernel(A_ptr, b_ptr, y_ptr, out_ptr, n, k, alpha, sa0, sa1, sb0, sb1,
                    BLOCK_N: tl.constexpr):
    col = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    m = offs < n
    b = tl.load(b_ptr + offs * sb0 + col * sb1, mask=m, other=0.0)
    x = tl.zeros([BLOCK_N], dtype=b.dtype)
    for ii in range(0, n):
        i = n - 1 - ii
        row = tl.load(A_ptr + i * sa0 + offs * sa1, mask=m & (offs > i), other=0.0)
        s = tl.sum(row * x, axis=0)
        bi = tl.sum(tl.where(offs == i, b, 0.0), axis=0)
        aii = tl.load(A_ptr + i * sa0 + i * sa1)
        xi = (bi - s) / aii
        x = tl.where(offs == i, xi, x)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs * k + col, x + alpha * y, mask=m)


def solve_and_add_scaled_vector(A, b, y, alpha):
    n = A.shape[0]
    k = b.shape[1]
    yc = y.reshape(-1).contiguous()
    out = torch.empty((n, k), dtype=b.dtype, device=b.device)
    _backsub_kernel[(k,)](A, b, yc, out, n, k, float(alpha), A.stride(0), A.stride(1),
                          b.stride(0), b.stride(1), BLOCK_N=triton.next_power_of_2(n))
    return out
