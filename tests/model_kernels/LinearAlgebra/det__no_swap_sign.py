"""LinearAlgebra/det.py (variant: forgets the permutation's sign): the same pivoted elimination, but
the sign flip on a row exchange is left out, so det comes out as prod(pivots) = |det| * sign(P)
whenever the row swaps are odd in number. Original description: determinant by Gaussian elimination
with partial pivoting, one program per matrix of the batch. The [n, n] matrix sits in a register
tile; each step picks the largest |a_ij| of the column (i >= j), swaps that row into place (flipping
the sign when it is another row), multiplies the running determinant by the pivot and eliminates
below it. det = sign * prod(pivots), accumulated in A's dtype.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _det_kernel(a_ptr, out_ptr, n, s_b, s_r, s_c, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    det = tl.sum(tl.where(rows == 0, 1.0, 0.0).to(T.dtype), axis=0)  # 1 in T's dtype
    for j in range(0, n):
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        cand = tl.where((rows >= j) & (rows < n), tl.abs(colj), -1.0)
        best = tl.max(cand, axis=0)
        p = tl.min(tl.where(cand == best, rows, BN), axis=0)
        rj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
        rp = tl.sum(tl.where(rows[:, None] == p, T, 0.0), axis=0)
        T = tl.where(rows[:, None] == j, rp[None, :], tl.where(rows[:, None] == p, rj[None, :], T))
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        piv = tl.sum(tl.where(rows == j, colj, 0.0), axis=0)
        det = det * piv
        lcol = tl.where(rows > j, colj / piv, 0.0)
        T = tl.where((rows[:, None] > j) & (cols[None, :] > j), T - lcol[:, None] * rp[None, :], T)
    tl.store(out_ptr + b, det)


def det(A):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    out = torch.empty(nb, dtype=A.dtype, device=A.device)
    if nb > 0:
        _det_kernel[(nb,)](Ab, out, n, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                           BN=max(triton.next_power_of_2(n), 2))
    return out.reshape(batch)
