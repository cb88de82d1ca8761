"""LinearAlgebra/determinant_lu.py variant: the pivot=False path still counts a sign flip per
step (det = -det on every column, a copy-paste of the swap bookkeeping without the `p != j`
test), so for pivot=False the determinant's sign is (-1)^n times the true one: right for even
n, wrong for odd n. The description says det = prod(diag(U)) with P = I there; the 3x3 and
batched 5x5 no-pivot cases must fail.

Otherwise the kernel is LinearAlgebra/determinant_lu.py: LU by Gaussian elimination, one program per matrix of the
batch, the [n, n] matrix in a register tile read through A's strides (non-contiguous A works,
A is never written). With pivot=True each step picks the largest |a_ij| in column j (i >= j),
swaps that row into place and flips the sign when it is another row; with pivot=False the
diagonal entry is used as it is (no swap). det = sign * prod(pivots), accumulated in A's dtype
(float64 stays float64). A single matrix gives a 0-d tensor; with `out` the result is copied
into it and `out` is returned.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _det_lu_kernel(a_ptr, out_ptr, n, s_b, s_r, s_c, PIVOT: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    det = tl.sum(tl.where(rows == 0, 1.0, 0.0).to(T.dtype), axis=0)  # 1 in T's dtype
    for j in range(0, n):
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        if PIVOT:
            cand = tl.where((rows >= j) & (rows < n), tl.abs(colj), -1.0)
            best = tl.max(cand, axis=0)
            p = tl.min(tl.where(cand == best, rows, BN), axis=0)
        else:
            p = j
        rj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
        rp = tl.sum(tl.where(rows[:, None] == p, T, 0.0), axis=0)
        T = tl.where(rows[:, None] == j, rp[None, :], tl.where(rows[:, None] == p, rj[None, :], T))
        if PIVOT:
            det = tl.where(p != j, -det, det)
        else:
            det = -det
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        piv = tl.sum(tl.where(rows == j, colj, 0.0), axis=0)
        det = det * piv
        lcol = tl.where(rows > j, colj / piv, 0.0)
        T = tl.where((rows[:, None] > j) & (cols[None, :] > j), T - lcol[:, None] * rp[None, :], T)
    tl.store(out_ptr + b, det)


def determinant_lu(A, *, pivot=True, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    res = torch.empty(nb, dtype=A.dtype, device=A.device)
    if nb > 0:
        _det_lu_kernel[(nb,)](Ab, res, n, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                              PIVOT=bool(pivot), BN=max(triton.next_power_of_2(n), 2))
    res = res.reshape(batch)
    if out is not None:
        out.copy_(res)
        return out
    return res
