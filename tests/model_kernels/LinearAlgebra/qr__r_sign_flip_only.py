"""LinearAlgebra/qr.py (variant: half a sign fix): LAPACK-style reflectors (x -> -sign(x_j) ||x||
e_j), then R's rows are negated wherever its diagonal came out negative, "to match the
positive-diagonal convention", but Q's columns are left as they are, so Q R != A (only mode='r',
where R^T R does not see row signs, still passes). Original description: Householder QR with a
non-negative R diagonal, one program per matrix. The [m, n] matrix and the accumulated Q [m, m] sit
in register tiles. Column j's reflector maps x = R[j:, j] to +||x|| e_j (v = x - ||x|| e_j, its
first entry computed as -|x_tail|^2 / (x_j + ||x||) when x_j > 0 to avoid cancellation, Golub & Van
Loan 5.1.1), so R's diagonal is >= 0, unlike LAPACK's geqrf (beta = -sign(x_j) ||x||): Q's columns
and R's rows differ from torch's by signs. Q = H_1 H_2 ... H_k is accumulated by applying each
reflector from the right. mode='reduced' keeps Q[:, :k] and R[:k], 'complete' the full Q and R [m,
n], 'r' only R (Q an empty tensor).
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _householder_qr_kernel(a_ptr, q_ptr, r_ptr, m, n, k, qc, rr, s_b, s_r, s_c,
                           WANT_Q: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    qcols = tl.arange(0, BM)
    inb = (rows[:, None] < m) & (cols[None, :] < n)
    T = tl.load(a_ptr + b * s_b + rows[:, None] * s_r + cols[None, :] * s_c, mask=inb, other=0.0)
    Q = tl.where((rows[:, None] == qcols[None, :]) & (rows[:, None] < m), 1.0, 0.0).to(T.dtype)
    for j in range(0, k):
        x = tl.sum(tl.where(cols[None, :] == j, T, 0.0), axis=1)
        x = tl.where((rows >= j) & (rows < m), x, 0.0)
        x1 = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        sig = tl.sum(tl.where(rows > j, x * x, 0.0), axis=0)
        nrm = tl.sqrt(x1 * x1 + sig)
        alpha = tl.where(x1 >= 0, -nrm, nrm)
        v1 = x1 - alpha
        v = tl.where(rows == j, v1, x)
        vv = v1 * v1 + sig
        refl = vv > 0
        scale = tl.where(refl, 2.0 / tl.where(refl, vv, 1.0), 0.0)
        w = tl.sum(v[:, None] * T, axis=0)          # v^T R
        T = T - scale * v[:, None] * w[None, :]
        if WANT_Q:
            qv = tl.sum(Q * v[None, :], axis=1)       # Q v
            Q = Q - scale * qv[:, None] * v[None, :]
    T = tl.where(rows[:, None] > cols[None, :], 0.0, T)
    dg = tl.sum(tl.where(rows[:, None] == cols[None, :], T, 0.0), axis=1)
    T = tl.where(dg[:, None] < 0, -T, T)   # flip R's rows to a positive diagonal (Q not updated)
    rm = (rows[:, None] < rr) & (cols[None, :] < n)
    tl.store(r_ptr + b * rr * n + rows[:, None] * n + cols[None, :], T, mask=rm)
    if WANT_Q:
        qm = (rows[:, None] < m) & (qcols[None, :] < qc)
        tl.store(q_ptr + b * m * qc + rows[:, None] * qc + qcols[None, :], Q, mask=qm)


def qr(A, mode="reduced", out=None):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = A.shape[:-2]
    Ab = A.reshape(-1, m, n)
    nb = Ab.shape[0]
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr received unrecognized mode '{mode}'")
    want_q = mode != "r"
    qc = m if mode == "complete" else k
    rr = m if mode == "complete" else k
    R = torch.empty(nb, rr, n, dtype=A.dtype, device=A.device)
    Q = torch.empty(nb, m, qc, dtype=A.dtype, device=A.device) if want_q else torch.empty(0, dtype=A.dtype,
                                                                                         device=A.device)
    BM = max(triton.next_power_of_2(m), 2)
    BN = max(triton.next_power_of_2(n), 2)
    if nb > 0:
        _householder_qr_kernel[(nb,)](Ab, Q if want_q else R, R, m, n, k, qc, rr,
                                      Ab.stride(0), Ab.stride(1), Ab.stride(2),
                                      WANT_Q=want_q, BM=BM, BN=BN)
    R = R.reshape(*batch, rr, n)
    if want_q:
        Q = Q.reshape(*batch, m, qc)
    if out is not None:
        out[0].resize_(Q.shape).copy_(Q)
        out[1].resize_(R.shape).copy_(R)
        return out
    return Q, R
