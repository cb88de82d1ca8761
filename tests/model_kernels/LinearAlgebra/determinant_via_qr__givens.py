"""LinearAlgebra/determinant_via_qr.py (variant: Givens rotations): QR by Givens rotations in
registers, one program per matrix. Each entry below the diagonal of column j is zeroed by rotating
its row against row j (c = a / r, s = b / r, r = hypot(a, b)); a rotation has determinant +1, so
det(Q) = 1 and det(A) = prod(diag(R)), a different sign convention from a Householder QR (whose
R diagonal, and det(Q), differ by signs) that gives the same determinant.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _givens_det_kernel(a_ptr, out_ptr, n, s_b, s_r, s_c, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    for j in range(0, n):
        for i in range(j + 1, n):
            rj = tl.sum(tl.where(rows[:, None] == j, T, 0.0), axis=0)
            ri = tl.sum(tl.where(rows[:, None] == i, T, 0.0), axis=0)
            a = tl.sum(tl.where(cols == j, rj, 0.0), axis=0)
            bb = tl.sum(tl.where(cols == j, ri, 0.0), axis=0)
            r = tl.sqrt(a * a + bb * bb)
            nz = r > 0
            rs = tl.where(nz, r, 1.0)
            c = tl.where(nz, a / rs, 1.0)
            s = tl.where(nz, bb / rs, 0.0)
            new_j = c * rj + s * ri
            new_i = c * ri - s * rj
            T = tl.where(rows[:, None] == j, new_j[None, :], tl.where(rows[:, None] == i, new_i[None, :], T))
    d = tl.sum(tl.where((rows[:, None] == cols[None, :]) & inb, T, 0.0), axis=1)
    d = tl.where(rows < n, d, 1.0)
    # product of the diagonal: log-free, one factor at a time
    det = tl.sum(tl.where(rows == 0, d, 0.0), axis=0)
    for j in range(1, n):
        det = det * tl.sum(tl.where(rows == j, d, 0.0), axis=0)
    tl.store(out_ptr + b, det)


def determinant_via_qr(A, *, mode="reduced", out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    res = torch.empty(nb, dtype=A.dtype, device=A.device)
    if nb > 0:
        _givens_det_kernel[(nb,)](Ab, res, n, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                                  BN=max(triton.next_power_of_2(n), 2))
    res = res.reshape(batch)
    if out is not None:
        out.copy_(res)
        return out
    return res
