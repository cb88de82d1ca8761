"""LinearAlgebra/cholesky_solve.py: one program per (batch, block of right-hand-side columns)
does the forward substitution with the lower factor F (L, or U^T read through swapped strides)
and then the back substitution with F^T, row by row: each row's dot product with the solved part
is a masked block load and tl.sum, in the inputs' dtype (float32 or float64). The solution lives
in the output buffer between rows.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _chol_solve_kernel(f_ptr, b_ptr, x_ptr, n, k, f_bs, f_r, f_c, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    bid = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    cm = cols < k
    rows = tl.arange(0, BLOCK_N)
    fb = f_ptr + bid * f_bs
    xb = x_ptr + bid * n * k
    bb = b_ptr + bid * n * k
    # forward: F y = b
    for i in range(0, n):
        fi = tl.load(fb + i * f_r + rows * f_c, mask=rows < i, other=0.0)
        xs = tl.load(xb + rows[:, None] * k + cols[None, :], mask=(rows[:, None] < i) & cm[None, :], other=0.0)
        s = tl.sum(fi[:, None] * xs, axis=0)
        bi = tl.load(bb + i * k + cols, mask=cm, other=0.0)
        dii = tl.load(fb + i * f_r + i * f_c)
        tl.store(xb + i * k + cols, (bi - s) / dii, mask=cm)
        tl.debug_barrier()
    # backward: F^T x = y, (F^T)[i, j] = F[j, i]
    for ii in range(0, n):
        i = n - 1 - ii
        fi = tl.load(fb + rows * f_r + i * f_c, mask=(rows > i) & (rows < n), other=0.0)
        xs = tl.load(xb + rows[:, None] * k + cols[None, :], mask=(rows[:, None] > i) & (rows[:, None] < n) & cm[None, :],
                     other=0.0)
        s = tl.sum(fi[:, None] * xs, axis=0)
        yi = tl.load(xb + i * k + cols, mask=cm, other=0.0)
        dii = tl.load(fb + i * f_r + i * f_c)
        tl.store(xb + i * k + cols, (yi - s) / dii, mask=cm)
        tl.debug_barrier()


def cholesky_solve(B, L, upper=False, out=None):
    batch = torch.broadcast_shapes(B.shape[:-2], L.shape[:-2])
    n, k = B.shape[-2], B.shape[-1]
    Bb = B.expand(*batch, n, k).reshape(-1, n, k).contiguous()
    Lb = L.expand(*batch, n, n).reshape(-1, n, n).contiguous()
    nb = Bb.shape[0]
    X = torch.empty_like(Bb)
    if upper:
        f_r, f_c = 1, n      # F = U^T: F[i, j] = U[j, i]
    else:
        f_r, f_c = n, 1
    BK = 16
    _chol_solve_kernel[(nb, triton.cdiv(k, BK))](Lb, Bb, X, n, k, n * n, f_r, f_c,
                                                 BLOCK_N=triton.next_power_of_2(n), BLOCK_K=BK)
    X = X.reshape(*batch, n, k)
    if out is not None:
        out.copy_(X)
        return out
    return X
