"""LinearAlgebra/solve.py (variant: no singularity check): the kernel below, but the wrapper never
looks at the zero-pivot flag, so an exactly singular A returns inf/nan instead of raising, which the
task requires. Original description: Gaussian elimination with partial pivoting on the augmented
system [A | B], one program per (broadcast) batch entry and block of right-hand-side columns. A's
[n, n] tile and B's [n, BLOCK_K] tile live in registers: each column step swaps the row of largest
|a_ij| into place in both, eliminates below the pivot, and a back substitution row by row then gives
X. An exactly zero pivot sets a flag and the wrapper raises torch.linalg.LinAlgError; a non-square A
raises RuntimeError. A vector B [*, n] is solved as one column.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _solve_kernel(a_ptr, b_ptr, x_ptr, info_ptr, n, k, a_bs, a_r, a_c, b_bs, b_r, b_c,
                  BN: tl.constexpr, BK: tl.constexpr):
    bid = tl.program_id(0)
    kc = tl.program_id(1) * BK + tl.arange(0, BK)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    am = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + bid * a_bs + rows[:, None] * a_r + cols[None, :] * a_c, mask=am, other=0.0)
    bm = (rows[:, None] < n) & (kc[None, :] < k)
    Bt = tl.load(b_ptr + bid * b_bs + rows[:, None] * b_r + kc[None, :] * b_c, mask=bm, other=0.0)
    singular = tl.zeros([], dtype=tl.int32)
    for j in range(0, n):
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        cand = tl.where((rows >= j) & (rows < n), tl.abs(colj), -1.0)
        best = tl.max(cand, axis=0)
        p = tl.min(tl.where(cand == best, rows, BN), axis=0)
        rj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
        rp = tl.sum(tl.where(rows[:, None] == p, T, 0.0), axis=0)
        T = tl.where(rows[:, None] == j, rp[None, :], tl.where(rows[:, None] == p, rj[None, :], T))
        bj = tl.sum(tl.where(rows[:, None] == j, Bt, 0.0), axis=0)
        bp = tl.sum(tl.where(rows[:, None] == p, Bt, 0.0), axis=0)
        Bt = tl.where(rows[:, None] == j, bp[None, :], tl.where(rows[:, None] == p, bj[None, :], Bt))
        colj = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        piv = tl.sum(tl.where(rows == j, colj, 0.0), axis=0)
        singular = tl.where(piv == 0, 1, singular)
        safe = tl.where(piv == 0, 1.0, piv)
        lcol = tl.where(rows > j, colj / safe, 0.0)
        T = tl.where((rows[:, None] > j) & (cols[None, :] > j), T - lcol[:, None] * rp[None, :], T)
        Bt = tl.where(rows[:, None] > j, Bt - lcol[:, None] * bp[None, :], Bt)
    # back substitution: U X = Y
    X = tl.zeros([BN, BK], dtype=Bt.dtype)
    for ii in range(0, n):
        i = n - 1 - ii
        ui = tl.sum(tl.where(rows[:, None] == i, T, 0.0), axis=0)      # row i of U, indexed by column
        uii = tl.sum(tl.where(cols == i, ui, 0.0), axis=0)
        uoff = tl.where(cols > i, ui, 0.0)
        s = tl.sum(uoff[:, None] * X, axis=0)
        yi = tl.sum(tl.where(rows[:, None] == i, Bt, 0.0), axis=0)
        xi = (yi - s) / tl.where(uii == 0, 1.0, uii)
        X = tl.where(rows[:, None] == i, xi[None, :], X)
    tl.store(x_ptr + bid * n * k + rows[:, None] * k + kc[None, :], X, mask=bm)
    if tl.program_id(1) == 0:
        tl.store(info_ptr + bid, singular)


def solve(A, B):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("solve: A must be a batch of square matrices")
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != n:
        raise RuntimeError("solve: incompatible shapes")
    k = Bm.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    Ab = A.expand(*batch, n, n).reshape(-1, n, n)
    Bb = Bm.to(A.dtype).expand(*batch, n, k).reshape(-1, n, k)
    nb = Ab.shape[0]
    X = torch.empty(nb, n, k, dtype=A.dtype, device=A.device)
    info = torch.zeros(nb, dtype=torch.int32, device=A.device)
    BK = min(max(triton.next_power_of_2(k), 2), 32)
    if nb > 0 and n > 0 and k > 0:
        _solve_kernel[(nb, triton.cdiv(k, BK))](Ab, Bb, X, info, n, k, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                                                Bb.stride(0), Bb.stride(1), Bb.stride(2),
                                                BN=max(triton.next_power_of_2(n), 2), BK=BK)
    X = X.reshape(*batch, n, k)
    return X.squeeze(-1) if vector else X
