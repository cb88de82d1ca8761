"""LinearAlgebra/determinant_via_qr.py (variant: drops det(Q)): the Householder QR below, but the
result is prod(diag(R)) alone, as if det(Q) were 1: with n reflections the sign is wrong for every
odd n. Original description: Householder QR in registers, one program per matrix. For each
column j the reflector v = x - alpha e_j with alpha = -sign(x_j) ||x|| (x = R[j:, j]) is applied to
the trailing tile as R -= 2 v (v^T R) / (v^T v); every reflection that is not the identity has
determinant -1, so det(A) = (-1)^(reflections) * prod(diag(R)). Q is never formed; `mode` does not
change the result for square A.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _qr_det_kernel(a_ptr, out_ptr, n, s_b, s_r, s_c, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < n) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    det = tl.sum(tl.where(rows == 0, 1.0, 0.0).to(T.dtype), axis=0)
    for j in range(0, n):
        x = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        x = tl.where((rows >= j) & (rows < n), x, 0.0)
        xj = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        nrm = tl.sqrt(tl.sum(x * x, axis=0))
        alpha = tl.where(xj >= 0, -nrm, nrm)
        v = tl.where(rows == j, x - alpha, x)
        vv = tl.sum(v * v, axis=0)
        refl = vv > 0
        scale = tl.where(refl, 2.0 / tl.where(refl, vv, 1.0), 0.0)
        w = tl.sum(v[:, None] * T, axis=0)  # v^T T
        T = T - scale * v[:, None] * w[None, :]
        rjj = tl.sum(tl.sum(tl.where((rows[:, None] == j) & (cols[None, :] == j), T, 0.0), axis=1), axis=0)
        det = det * rjj
    tl.store(out_ptr + b, det)


def determinant_via_qr(A, *, mode="reduced", out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    res = torch.empty(nb, dtype=A.dtype, device=A.device)
    if nb > 0:
        _qr_det_kernel[(nb,)](Ab, res, n, Ab.stride(0), Ab.stride(1), Ab.stride(2),
                              BN=max(triton.next_power_of_2(n), 2))
    res = res.reshape(batch)
    if out is not None:
        out.copy_(res)
        return out
    return res
