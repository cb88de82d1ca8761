"""LinearAlgebra/invert_matrix_lu.py (variant: P where P^T belongs, as upstream's reference): the
kernel below solves L U X = P instead of P^T, i.e. returns U^-1 L^-1 P. Right whenever the row
permutation is its own inverse (every 2x2, no pivoting), wrong for the pivoted 3x3 and larger cases
with a longer cycle. Original description: A^-1 = U^-1 L^-1 P^T, one program per matrix. Phase 1 is
a register-tile LU (partial pivoting unless pivot=False) that keeps the multipliers in place and the
row permutation as a vector perm (row i of L U is row perm[i] of A, so A = P L U with P[perm[c], c]
= 1). Phase 2 builds the right-hand side P^T (row i is e_{perm[i]}) and solves L Y = P^T (unit
lower, forward) and U X = Y (backward), row by row on [n, n] tiles.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _lu_inverse_kernel(a_ptr, x_ptr, n, s_b, s_r, s_c, PIVOT: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    am = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=am, other=0.0)
    perm = rows
    for j in range(0, n):
        if PIVOT:
            colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
            cand = tl.where((rows >= j) & (rows < n), tl.abs(colj), -1.0)
            best = tl.max(cand, axis=0)
            p = tl.min(tl.where(cand == best, rows, BN), axis=0)
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
    # right-hand side P^T: row i is the unit row e_{perm[i]}
    Y = tl.where((perm[None, :] == rows[:, None]) & am, 1.0, 0.0).to(T.dtype)   # P[r, c] = [perm[c] == r]
    # forward: L Y = P^T (unit diagonal)
    for i in range(1, n):
        li = tl.sum(tl.where(rows[:, None] == i, T, 0.0), axis=0)
        li = tl.where(cols < i, li, 0.0)
        s = tl.sum(li[:, None] * Y, axis=0)
        Y = tl.where(rows[:, None] == i, Y - s[None, :], Y)
    # backward: U X = Y
    X = tl.zeros([BN, BN], dtype=T.dtype)
    for ii in range(0, n):
        i = n - 1 - ii
        ui = tl.sum(tl.where(rows[:, None] == i, T, 0.0), axis=0)
        uii = tl.sum(tl.where(cols == i, ui, 0.0), axis=0)
        uoff = tl.where(cols > i, ui, 0.0)
        s = tl.sum(uoff[:, None] * X, axis=0)
        yi = tl.sum(tl.where(rows[:, None] == i, Y, 0.0), axis=0)
        X = tl.where(rows[:, None] == i, ((yi - s) / uii)[None, :], X)
    tl.store(x_ptr + b * n * n + rows[:, None] * n + cols[None, :], X, mask=am)


def invert_matrix_lu(A, *, pivot=True, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    X = torch.empty(nb, n, n, dtype=A.dtype, device=A.device)
    if nb > 0:
        _lu_inverse_kernel[(nb,)](Ab, X, n, Ab.stride(0), Ab.stride(1), Ab.stride(2), PIVOT=pivot,
                                  BN=max(triton.next_power_of_2(n), 2))
    X = X.reshape(*batch, n, n)
    if out is not None:
        out.copy_(X)
        return out
    return X
