"""LinearAlgebra/lu.py (variant: never pivots): the LU kernel below, but the wrapper always launches
it with PIVOT=False and returns an identity P for pivot=True. A = P L U still holds on randn inputs
(no exactly zero pivot), but the multipliers are unbounded (|L| > 1), which partial pivoting
forbids. Original description: right-looking LU with partial pivoting, one program per matrix. The
whole [m, n] matrix sits in a register tile; for each column j the program picks the row of largest
|a_ij| (i >= j; the lowest index on ties), swaps it with row j (and the entries of the permutation
vector), forms the multipliers and applies the rank-1 update to the trailing block, keeping the
multipliers in place (LAPACK's getrf layout). The kernel then writes unit-lower L [m, k], upper U
[k, n] and the permutation matrix P (P[perm[c], c] = 1, so A = P L U). pivot=False skips the search
and the swaps and returns an empty P.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _lu_kernel(a_ptr, p_ptr, l_ptr, u_ptr, m, n, k, s_b, s_r, s_c,
               PIVOT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < m) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    perm = rows
    for j in range(0, k):
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        if PIVOT:
            cand = tl.where((rows >= j) & (rows < m), tl.abs(colj), -1.0)
            best = tl.max(cand, axis=0)
            p = tl.min(tl.where(cand == best, rows, BM), axis=0)
            rj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
            rp = tl.sum(tl.where(rows[:, None] == p, T, 0.0), axis=0)
            T = tl.where(rows[:, None] == j, rp[None, :], tl.where(rows[:, None] == p, rj[None, :], T))
            pj = tl.sum(tl.where(rows == j, perm, 0), axis=0)
            pp = tl.sum(tl.where(rows == p, perm, 0), axis=0)
            perm = tl.where(rows == j, pp, tl.where(rows == p, pj, perm))
            colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        rowj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
        piv = tl.sum(tl.where(rows == j, colj, 0.0), axis=0)
        lcol = tl.where(rows > j, colj / piv, 0.0)
        T = tl.where((rows[:, None] > j) & (cols[None, :] > j), T - lcol[:, None] * rowj[None, :], T)
        T = tl.where((rows[:, None] > j) & (cols[None, :] == j), lcol[:, None], T)
    # L [m, k]: strictly lower part of T plus a unit diagonal
    lm = (rows[:, None] < m) & (cols[None, :] < k)
    Lt = tl.where(rows[:, None] > cols[None, :], T, tl.where(rows[:, None] == cols[None, :], 1.0, 0.0))
    tl.store(l_ptr + b * m * k + rows[:, None] * k + cols[None, :], Lt, mask=lm)
    # U [k, n]: upper part of the first k rows
    um = (rows[:, None] < k) & (cols[None, :] < n)
    Ut = tl.where(cols[None, :] >= rows[:, None], T, 0.0)
    tl.store(u_ptr + b * k * n + rows[:, None] * n + cols[None, :], Ut, mask=um)
    if PIVOT:
        # P [m, m]: P[r, c] = 1 where perm[c] == r
        pm = (rows[:, None] < m) & (rows[None, :] < m)
        Pt = tl.where(rows[:, None] == perm[None, :], 1.0, 0.0)
        tl.store(p_ptr + b * m * m + rows[:, None] * m + rows[None, :], Pt, mask=pm)


def lu(A, pivot=True, out=None):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = A.shape[:-2]
    Ab = A.reshape(-1, m, n)
    nb = Ab.shape[0]
    L = torch.empty(nb, m, k, dtype=A.dtype, device=A.device)
    U = torch.empty(nb, k, n, dtype=A.dtype, device=A.device)
    P = torch.empty(nb, m, m, dtype=A.dtype, device=A.device) if pivot else torch.empty(0, dtype=A.dtype,
                                                                                        device=A.device)
    BM = max(triton.next_power_of_2(m), 2)
    BN = max(triton.next_power_of_2(n), 2)
    if nb > 0:
        _lu_kernel[(nb,)](Ab, L, L, U, m, n, k, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                          PIVOT=False, BM=BM, BN=BN)
    if pivot:
        P = torch.eye(m, dtype=A.dtype, device=A.device).expand(nb, m, m).contiguous()
    L = L.reshape(*batch, m, k)
    U = U.reshape(*batch, k, n)
    if pivot:
        P = P.reshape(*batch, m, m)
    if out is not None:
        for dst, src in zip(out, (P, L, U)):
            dst.resize_(src.shape).copy_(src)
        return out
    return P, L, U
