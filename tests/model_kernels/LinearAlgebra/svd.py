"""LinearAlgebra/svd.py: one-sided (Hestenes) Jacobi SVD in Triton, one program per matrix. A wide A
is handled as A^T (A = V S U^T). Each launch is one sweep over all column pairs (p, q) of the tall
working matrix G (starts as A) and of V (starts as I) in round-robin order: N - 1 rounds of N / 2
disjoint pairs, rotated together as [M, N / 2] column gathers. Each rotation orthogonalises columns
p and q (t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)), zeta = (|g_q|^2 - |g_p|^2) / (2 g_p.g_q)) is
applied to both; pairs already orthogonal to n * eps are skipped. The wrapper repeats sweeps until a
sweep rotates nothing. A second kernel takes S = column norms, U = G / S; the wrapper sorts the
triplets by descending S, and for full_matrices a third kernel completes U to an orthogonal basis
(greedy Gram-Schmidt of the unit vectors least covered by U, two passes). Signs of the singular
vectors are whatever the rotations give, not LAPACK's.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _jacobi_sweep_kernel(g_ptr, v_ptr, cnt_ptr, M, N, NP, tol, BM: tl.constexpr, BN: tl.constexpr,
                         BH: tl.constexpr):
    # one sweep in parallel (round-robin) order: NP - 1 rounds of NP / 2 disjoint pairs each
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    vrows = tl.arange(0, BN)
    i = tl.arange(0, BH)
    H = NP // 2
    gb = g_ptr + b * M * N
    vb = v_ptr + b * N * N
    count = tl.zeros([], dtype=tl.int32)
    for r in range(0, NP - 1):
        p = tl.where(i == 0, r, (r + i) % (NP - 1))
        q = tl.where(i == 0, NP - 1, (r - i + NP - 1) % (NP - 1))
        live = (i < H) & (p < N) & (q < N)
        gm = (rows[:, None] < M) & live[None, :]
        gp = tl.load(gb + rows[:, None] * N + p[None, :], mask=gm, other=0.0)
        gq = tl.load(gb + rows[:, None] * N + q[None, :], mask=gm, other=0.0)
        alpha = tl.sum(gp * gp, axis=0)
        beta = tl.sum(gq * gq, axis=0)
        gamma = tl.sum(gp * gq, axis=0)
        rot = (tl.abs(gamma) > tol * tl.sqrt(alpha * beta)) & live
        gs = tl.where(rot, gamma, 1.0)
        zeta = (beta - alpha) / (2.0 * gs)
        t = tl.where(zeta >= 0, 1.0, -1.0) / (tl.abs(zeta) + tl.sqrt(1.0 + zeta * zeta))
        c = 1.0 / tl.sqrt(1.0 + t * t)
        s = c * t
        c = tl.where(rot, c, 1.0)
        s = tl.where(rot, s, 0.0)
        tl.store(gb + rows[:, None] * N + p[None, :], c[None, :] * gp - s[None, :] * gq, mask=gm)
        tl.store(gb + rows[:, None] * N + q[None, :], s[None, :] * gp + c[None, :] * gq, mask=gm)
        vm = (vrows[:, None] < N) & live[None, :]
        vp = tl.load(vb + vrows[:, None] * N + p[None, :], mask=vm, other=0.0)
        vq = tl.load(vb + vrows[:, None] * N + q[None, :], mask=vm, other=0.0)
        tl.store(vb + vrows[:, None] * N + p[None, :], c[None, :] * vp - s[None, :] * vq, mask=vm)
        tl.store(vb + vrows[:, None] * N + q[None, :], s[None, :] * vp + c[None, :] * vq, mask=vm)
        count += tl.sum(rot.to(tl.int32), axis=0)
        tl.debug_barrier()
    tl.store(cnt_ptr + b, count)


@triton.jit
def _normalize_kernel(g_ptr, u_ptr, s_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    gm = (rows[:, None] < M) & (cols[None, :] < N)
    G = tl.load(g_ptr + b * M * N + rows[:, None] * N + cols[None, :], mask=gm, other=0.0)
    sig = tl.sqrt(tl.sum(G * G, axis=0))
    U = G / tl.where(sig > 0, sig, 1.0)[None, :]
    tl.store(u_ptr + b * M * N + rows[:, None] * N + cols[None, :], U, mask=gm)
    tl.store(s_ptr + b * N + cols, sig, mask=cols < N)


@triton.jit
def _complete_kernel(u_ptr, q_ptr, M, N, BM: tl.constexpr):
    # Q [M, M]: the N orthonormal columns of U, then M - N more from the unit vectors.
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BM)
    Q = tl.load(u_ptr + b * M * N + rows[:, None] * N + cols[None, :],
                mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.0)
    for c in range(N, M):
        # how much of e_i lies outside span(Q): 1 - |Q[i, :]|^2; take the least covered one
        cover = tl.sum(Q * Q, axis=1)
        res = tl.where(rows < M, 1.0 - cover, -1.0)
        best = tl.max(res, axis=0)
        i = tl.min(tl.where(res == best, rows, BM), axis=0)
        e = tl.where(rows == i, 1.0, 0.0).to(Q.dtype)
        v = e
        for _ in range(2):
            proj = tl.sum(Q * v[:, None], axis=0)        # Q^T v
            v = v - tl.sum(Q * proj[None, :], axis=1)    # v - Q Q^T v
        v = v / tl.sqrt(tl.sum(v * v, axis=0))
        Q = tl.where(cols[None, :] == c, v[:, None], Q)
    tl.store(q_ptr + b * M * M + rows[:, None] * M + cols[None, :], Q,
             mask=(rows[:, None] < M) & (cols[None, :] < M))


def _jacobi_svd_tall(X, full):
    """X [nb, M, N] with M >= N: returns U [nb, M, N or M], S [nb, N] (descending), V [nb, N, N]."""
    nb, M, N = X.shape
    dev, dt = X.device, X.dtype
    G = X.contiguous().clone()
    V = torch.eye(N, dtype=dt, device=dev).expand(nb, N, N).contiguous()
    cnt = torch.zeros(nb, dtype=torch.int32, device=dev)
    BM = max(triton.next_power_of_2(M), 2)
    BN = max(triton.next_power_of_2(N), 2)
    tol = float(torch.finfo(dt).eps) * M
    NP = N + (N % 2)
    BH = max(triton.next_power_of_2(NP // 2), 2)
    for _ in range(40):
        _jacobi_sweep_kernel[(nb,)](G, V, cnt, M, N, NP, tol, BM=BM, BN=BN, BH=BH)
        if int(cnt.max()) == 0:
            break
    U = torch.empty(nb, M, N, dtype=dt, device=dev)
    S = torch.empty(nb, N, dtype=dt, device=dev)
    _normalize_kernel[(nb,)](G, U, S, M, N, BM=BM, BN=BN)
    order = torch.argsort(S, dim=-1, descending=True)
    S = torch.gather(S, -1, order)
    U = torch.gather(U, -1, order[:, None, :].expand(nb, M, N)).contiguous()
    V = torch.gather(V, -1, order[:, None, :].expand(nb, N, N)).contiguous()
    if full and M > N:
        Q = torch.empty(nb, M, M, dtype=dt, device=dev)
        _complete_kernel[(nb,)](U, Q, M, N, BM=BM)
        U = Q
    return U, S, V


def svd(A, full_matrices=True):
    m, n = A.shape[-2], A.shape[-1]
    batch = A.shape[:-2]
    k = min(m, n)
    wide = m < n
    X = A.mT if wide else A
    M, N = X.shape[-2], X.shape[-1]
    Xb = X.reshape(-1, M, N)
    Ut, S, Vt = _jacobi_svd_tall(Xb, full_matrices)
    if wide:
        # A^T = Ut S Vt^T  =>  A = Vt S Ut^T
        U, Vh = Vt, Ut.mT
    else:
        U, Vh = Ut, Vt.mT
    U = U.reshape(*batch, m, U.shape[-1])
    Vh = Vh.reshape(*batch, Vh.shape[-2], n)
    S = S.reshape(*batch, k)
    return U, S, Vh
