"""Fusion/fused_cholesky_solve.py, wrong variant: the same register-tile Cholesky + forward/back
substitution kernel, but without the positive-definiteness check: the pivot goes straight into
tl.sqrt, so an indefinite A gives a NaN pivot, NaNs propagate through both substitutions and the
wrapper returns them. The description requires that a matrix that is not positive definite raise
torch.linalg.LinAlgError (as torch.linalg.cholesky does); returning a NaN tensor silently is wrong.
For SPD inputs the result is identical to the correct kernel's.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _cholesky_solve_kernel(a_ptr, b_ptr, x_ptr, info_ptr, n, k, sar, sac, sbr, sbc, sxr, sxc,
                           BN: tl.constexpr, BK: tl.constexpr):
    kc = tl.program_id(0) * BK + tl.arange(0, BK)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    nm = rows < n
    km = kc < k
    T = tl.load(a_ptr + rows[:, None] * sar + cols[None, :] * sac,
                mask=nm[:, None] & (cols[None, :] < n), other=0.0)
    L = tl.zeros([BN, BN], dtype=tl.float32)
    # Cholesky A = L L^T (right-looking)
    for j in range(0, n):
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        d = tl.sum(tl.where(rows == j, colj, 0.0), axis=0)
        ljj = tl.sqrt(d)
        l = tl.where(rows == j, ljj, tl.where((rows > j) & nm, colj / ljj, 0.0))
        L = tl.where(cols[None, :] == j, l[:, None], L)
        trail = (rows[:, None] > j) & (cols[None, :] > j)
        T = tl.where(trail, T - l[:, None] * l[None, :], T)
    # forward substitution: L y = b
    Y = tl.load(b_ptr + rows[:, None] * sbr + kc[None, :] * sbc, mask=nm[:, None] & km[None, :], other=0.0)
    for i in range(0, n):
        li = tl.sum(tl.where(rows[:, None] == i, L, 0.0), axis=0)          # row i of L, by column
        lii = tl.sum(tl.where(cols == i, li, 0.0), axis=0)
        s = tl.sum(tl.where(cols < i, li, 0.0)[:, None] * Y, axis=0)
        yi = tl.sum(tl.where(rows[:, None] == i, Y, 0.0), axis=0)
        Y = tl.where(rows[:, None] == i, ((yi - s) / lii)[None, :], Y)
    # back substitution: L^T x = y, (L^T)[i, j] = L[j, i]
    X = Y
    for ii in range(0, n):
        i = n - 1 - ii
        ci = tl.sum(tl.where(cols[None, :] == i, L, 0.0), axis=1)          # column i of L, by row
        cii = tl.sum(tl.where(rows == i, ci, 0.0), axis=0)
        s = tl.sum(tl.where(rows > i, ci, 0.0)[:, None] * X, axis=0)
        xi = tl.sum(tl.where(rows[:, None] == i, X, 0.0), axis=0)
        X = tl.where(rows[:, None] == i, ((xi - s) / cii)[None, :], X)
    tl.store(x_ptr + rows[:, None] * sxr + kc[None, :] * sxc, X, mask=nm[:, None] & km[None, :])


def fused_cholesky_solve(A, b):
    if A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise RuntimeError("fused_cholesky_solve: A must be a square matrix")
    n = A.shape[0]
    vec = b.dim() == 1
    bm = b.unsqueeze(-1) if vec else b
    if bm.shape[0] != n:
        raise RuntimeError("fused_cholesky_solve: b must have n rows")
    k = bm.shape[1]
    Af = A.to(torch.float32)
    bf = bm.to(torch.float32)
    x = torch.empty((n, k), dtype=torch.float32, device=A.device)
    info = torch.zeros(1, dtype=torch.int32, device=A.device)
    if n > 0:
        BN = max(triton.next_power_of_2(n), 2)
        BK = min(max(triton.next_power_of_2(k), 2), 16)
        _cholesky_solve_kernel[(max(triton.cdiv(k, BK), 1),)](
            Af, bf, x, info, n, k, Af.stride(0), Af.stride(1), bf.stride(0), bf.stride(1),
            x.stride(0), x.stride(1), BN=BN, BK=BK)
    return x.squeeze(-1) if vec else x
