"""LinearAlgebra/low_rank_svd_approximation.py: A_k = U[:, :k] diag(S[:k]) Vh[:k] from a one-sided
(Hestenes) Jacobi SVD in Triton, one program per matrix (a wide A is handled as A^T and the result
transposed back). Each launch of the sweep kernel rotates all column pairs of G (starts as A) and V
(starts as I) once, in round-robin order (N - 1 rounds of N / 2 disjoint pairs); the wrapper
repeats sweeps until none rotates. S = column norms and U = G / S come from a second kernel; the
wrapper ranks the singular values (descending) and a third kernel sums the k leading rank-1 terms
S_c u_c v_c^T. Vector signs cancel in each term; full_matrices does not change the result.
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
def _rank_k_kernel(u_ptr, s_ptr, v_ptr, idx_ptr, o_ptr, M, N, k, BM: tl.constexpr, BN: tl.constexpr):
    # out [M, N] = sum over the k largest c of S[c] U[:, c] V[:, c]^T
    b = tl.program_id(0)
    orow = tl.arange(0, BM)
    ocol = tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=o_ptr.dtype.element_ty)
    for r in range(0, k):
        c = tl.load(idx_ptr + b * N + r)
        sc = tl.load(s_ptr + b * N + c)
        ucol = tl.load(u_ptr + b * M * N + orow * N + c, mask=orow < M, other=0.0)
        vcol = tl.load(v_ptr + b * N * N + ocol * N + c, mask=ocol < N, other=0.0)
        acc += (ucol * sc)[:, None] * vcol[None, :]
    tl.store(o_ptr + b * M * N + orow[:, None] * N + ocol[None, :], acc,
             mask=(orow[:, None] < M) & (ocol[None, :] < N))


def low_rank_svd_approximation(A, k, *, full_matrices=True, out=None):
    m, n = A.shape[-2], A.shape[-1]
    batch = A.shape[:-2]
    wide = m < n
    X = A.mT if wide else A
    M, N = X.shape[-2], X.shape[-1]
    Xb = X.reshape(-1, M, N)
    nb = Xb.shape[0]
    dev, dt = A.device, A.dtype
    G = Xb.contiguous().clone()
    V = torch.eye(N, dtype=dt, device=dev).expand(nb, N, N).contiguous()
    cnt = torch.zeros(nb, dtype=torch.int32, device=dev)
    BM = max(triton.next_power_of_2(M), 2)
    BN = max(triton.next_power_of_2(N), 2)
    NP = N + (N % 2)
    BH = max(triton.next_power_of_2(NP // 2), 2)
    tol = float(torch.finfo(dt).eps) * M
    for _ in range(40):
        _jacobi_sweep_kernel[(nb,)](G, V, cnt, M, N, NP, tol, BM=BM, BN=BN, BH=BH)
        if int(cnt.max()) == 0:
            break
    U = torch.empty(nb, M, N, dtype=dt, device=dev)
    S = torch.empty(nb, N, dtype=dt, device=dev)
    _normalize_kernel[(nb,)](G, U, S, M, N, BM=BM, BN=BN)
    order = torch.argsort(S, dim=-1, descending=True).to(torch.int32).contiguous()
    R = torch.empty(nb, M, N, dtype=dt, device=dev)
    _rank_k_kernel[(nb,)](U, S, V, order, R, M, N, int(k), BM=BM, BN=BN)
    R = R.mT if wide else R
    R = R.reshape(*batch, m, n)
    if out is not None:
        out.copy_(R)
        return out
    return R
