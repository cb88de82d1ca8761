"""Fusion/fused_lu_solve.py, wrong variant: the same lu_factor_ex + Triton triangular-solve kernel,
but the row interchanges are applied to b in reverse order (i = n-1 down to 0), the "undo the
swaps backwards" habit from un-permuting a result. Each swap is an involution, so reversing their
order forms P^T b instead of P b, and the kernel solves L U x = P^T b, i.e. A x = P^T P^T b: the
wrong system whenever P is not its own inverse (any pivot sequence beyond disjoint
transpositions). The description asks for the x of torch.linalg.solve(A, b), with L y = P b;
n = 2, where every permutation is its own inverse, still passes.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _lu_solve_kernel(lu_ptr, piv_ptr, b_ptr, x_ptr, info_ptr, n, k, slr, slc, sbr, sbc,
                     BN: tl.constexpr, BK: tl.constexpr):
    kc = tl.program_id(0) * BK + tl.arange(0, BK)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    nm = rows < n
    km = kc < k
    LU = tl.load(lu_ptr + rows[:, None] * slr + cols[None, :] * slc,
                 mask=nm[:, None] & (cols[None, :] < n), other=0.0)
    Y = tl.load(b_ptr + rows[:, None] * sbr + kc[None, :] * sbc, mask=nm[:, None] & km[None, :], other=0.0)
    # P b: undo the row interchanges
    for ii in range(0, n):
        i = n - 1 - ii
        p = tl.load(piv_ptr + i) - 1
        yi = tl.sum(tl.where(rows[:, None] == i, Y, 0.0), axis=0)
        yp = tl.sum(tl.where(rows[:, None] == p, Y, 0.0), axis=0)
        Y = tl.where(rows[:, None] == i, yp[None, :], tl.where(rows[:, None] == p, yi[None, :], Y))
    # L y = P b, L unit lower triangular
    for i in range(0, n):
        li = tl.sum(tl.where(rows[:, None] == i, LU, 0.0), axis=0)
        s = tl.sum(tl.where(cols < i, li, 0.0)[:, None] * Y, axis=0)
        yi = tl.sum(tl.where(rows[:, None] == i, Y, 0.0), axis=0)
        Y = tl.where(rows[:, None] == i, (yi - s)[None, :], Y)
    # U x = y
    singular = tl.zeros([], dtype=tl.int32)
    X = Y
    for ii in range(0, n):
        i = n - 1 - ii
        ui = tl.sum(tl.where(rows[:, None] == i, LU, 0.0), axis=0)
        uii = tl.sum(tl.where(cols == i, ui, 0.0), axis=0)
        singular = tl.where(uii == 0.0, 1, singular)
        s = tl.sum(tl.where(cols > i, ui, 0.0)[:, None] * X, axis=0)
        xi = tl.sum(tl.where(rows[:, None] == i, X, 0.0), axis=0)
        X = tl.where(rows[:, None] == i, ((xi - s) / tl.where(uii == 0.0, 1.0, uii))[None, :], X)
    tl.store(x_ptr + rows[:, None] * k + kc[None, :], X, mask=nm[:, None] & km[None, :])
    if tl.program_id(0) == 0:
        tl.store(info_ptr, singular)


def fused_lu_solve(A, b):
    if A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise RuntimeError("fused_lu_solve: A must be a square matrix")
    n = A.shape[0]
    vec = b.dim() == 1
    bm = b.unsqueeze(-1) if vec else b
    if bm.shape[0] != n:
        raise RuntimeError("fused_lu_solve: incompatible shapes")
    k = bm.shape[1]
    LU, piv, _ = torch.linalg.lu_factor_ex(A.to(torch.float32))
    piv = piv.to(torch.int32).contiguous()
    bf = bm.to(torch.float32)
    x = torch.empty((n, k), dtype=torch.float32, device=A.device)
    info = torch.zeros(1, dtype=torch.int32, device=A.device)
    if n > 0 and k > 0:
        BN = max(triton.next_power_of_2(n), 2)
        BK = min(max(triton.next_power_of_2(k), 2), 16)
        _lu_solve_kernel[(triton.cdiv(k, BK),)](LU, piv, bf, x, info, n, k, LU.stride(0), LU.stride(1),
                                               bf.stride(0), bf.stride(1), BN=BN, BK=BK)
        if int(info.item()) != 0:
            raise torch.linalg.LinAlgError("fused_lu_solve: the matrix is singular (zero pivot in U)")
    return x.squeeze(-1) if vec else x
