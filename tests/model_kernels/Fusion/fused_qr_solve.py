"""Fusion/fused_qr_solve.py: least squares by Householder QR in one Triton program per block of
right-hand-side columns. A [m, n] and b [m, BLOCK_K] sit in register tiles (read through their
strides); for each column j = 0 .. n-1 the reflector H_j = I - 2 v v^T / (v^T v), v = x - alpha e_j
with alpha = -sign(x_j) ||x|| (x = A[j:, j], LAPACK's sign choice, no cancellation), is applied to
the remaining columns of A and to b, so the A tile becomes R and b becomes Q^T b without forming Q.
Back substitution R x = (Q^T b)[:n] on the leading n rows gives x [n, k]. m < n raises ValueError.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _qr_solve_kernel(a_ptr, b_ptr, x_ptr, m, n, k, sar, sac, sbr, sbc,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    kc = tl.program_id(0) * BK + tl.arange(0, BK)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mm = rows < m
    km = kc < k
    T = tl.load(a_ptr + rows[:, None] * sar + cols[None, :] * sac, mask=mm[:, None] & (cols[None, :] < n), other=0.0)
    Bt = tl.load(b_ptr + rows[:, None] * sbr + kc[None, :] * sbc, mask=mm[:, None] & km[None, :], other=0.0)
    for j in range(0, n):
        x = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        x = tl.where((rows >= j) & mm, x, 0.0)
        xj = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        nrm = tl.sqrt(tl.sum(x * x, axis=0))
        alpha = tl.where(xj > 0, -nrm, nrm)
        v = tl.where(rows == j, xj - alpha, x)
        vv = tl.sum(v * v, axis=0)
        beta = tl.where(vv > 0, 2.0 / tl.where(vv > 0, vv, 1.0), 0.0)
        wa = tl.sum(v[:, None] * T, axis=0)            # v^T A
        T = T - beta * v[:, None] * wa[None, :]
        wb = tl.sum(v[:, None] * Bt, axis=0)           # v^T b
        Bt = Bt - beta * v[:, None] * wb[None, :]
    # back substitution on the leading n rows: R x = c
    X = tl.zeros([BN, BK], dtype=tl.float32)
    xr = tl.arange(0, BN)
    for ii in range(0, n):
        i = n - 1 - ii
        ri = tl.sum(tl.where(rows[:, None] == i, T, 0.0), axis=0)     # row i of R, by column
        rii = tl.sum(tl.where(cols == i, ri, 0.0), axis=0)
        s = tl.sum(tl.where(cols > i, ri, 0.0)[:, None] * X, axis=0)
        ci = tl.sum(tl.where(rows[:, None] == i, Bt, 0.0), axis=0)
        X = tl.where(xr[:, None] == i, ((ci - s) / rii)[None, :], X)
    tl.store(x_ptr + xr[:, None] * k + kc[None, :], X, mask=(xr[:, None] < n) & km[None, :])


def fused_qr_solve(A, b):
    if A.dim() != 2:
        raise ValueError("fused_qr_solve: A must be a matrix")
    m, n = A.shape
    if m < n:
        raise ValueError(f"fused_qr_solve needs m >= n (got A {m}x{n}); the system is underdetermined")
    vec = b.dim() == 1
    bm = b.unsqueeze(-1) if vec else b
    if bm.shape[0] != m:
        raise RuntimeError("fused_qr_solve: b must have as many rows as A")
    k = bm.shape[1]
    Af = A.to(torch.float32)
    bf = bm.to(torch.float32)
    x = torch.empty((n, k), dtype=torch.float32, device=A.device)
    if n > 0 and k > 0:
        BM = max(triton.next_power_of_2(m), 2)
        BN = max(triton.next_power_of_2(n), 2)
        BK = min(max(triton.next_power_of_2(k), 2), 16)
        _qr_solve_kernel[(triton.cdiv(k, BK),)](Af, bf, x, m, n, k, Af.stride(0), Af.stride(1),
                                               bf.stride(0), bf.stride(1), BM=BM, BN=BN, BK=BK)
    return x.squeeze(-1) if vec else x
