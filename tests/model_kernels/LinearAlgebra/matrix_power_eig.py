"""LinearAlgebra/matrix_power_eig.py: A^k = V diag(w^k) V^T from a two-sided (classical symmetric)
Jacobi eigendecomposition in Triton, one program per matrix. An init kernel copies A's lower
triangle into a symmetric work matrix W and sets V = I. Each launch of the sweep kernel visits all
(p, q) pairs once in round-robin order (n - 1 rounds of n / 2 disjoint pairs, rotated together):
t = sign(theta) / (|theta| + sqrt(theta^2 + 1)), theta = (w_qq - w_pp) / (2 w_pq), applied to rows
p, q, then columns p, q of W and to V's columns; w_pq is then set to zero. Pairs with |w_pq| below
eps * ||W||_F are skipped and the wrapper repeats sweeps until none rotates. The last kernel forms
sum_c f(w_c) v_c v_c^T with f(w) = sign * exp(k log |w|) (sign -1 for negative w and odd integer k,
NaN for negative w and fractional k, 1 for k = 0). The eigenvalues are not sorted.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _init_kernel(a_ptr, w_ptr, v_ptr, n, s_b, s_r, s_c, BN: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    m = (r[:, None] < n) & (r[None, :] < n)
    low = tl.load(a_ptr + b * s_b + r[:, None] * s_r + r[None, :] * s_c, mask=m & (r[:, None] >= r[None, :]),
                  other=0.0)
    upp = tl.load(a_ptr + b * s_b + r[None, :] * s_r + r[:, None] * s_c, mask=m & (r[:, None] < r[None, :]),
                  other=0.0)   # A[c, r] for r < c: the mirror of the lower triangle
    tl.store(w_ptr + b * n * n + r[:, None] * n + r[None, :], low + upp, mask=m)
    eye = tl.where(r[:, None] == r[None, :], 1.0, 0.0).to(low.dtype)
    tl.store(v_ptr + b * n * n + r[:, None] * n + r[None, :], eye, mask=m)


@triton.jit
def _sweep_kernel(w_ptr, v_ptr, cnt_ptr, n, NP, eps, BN: tl.constexpr, BH: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    i = tl.arange(0, BH)
    H = NP // 2
    wb = w_ptr + b * n * n
    vb = v_ptr + b * n * n
    full = tl.load(wb + r[:, None] * n + r[None, :], mask=(r[:, None] < n) & (r[None, :] < n), other=0.0)
    thresh = eps * tl.sqrt(tl.sum(tl.sum(full * full, axis=1), axis=0))
    count = tl.zeros([], dtype=tl.int32)
    for rnd in range(0, NP - 1):
        p = tl.where(i == 0, rnd, (rnd + i) % (NP - 1))
        q = tl.where(i == 0, NP - 1, (rnd - i + NP - 1) % (NP - 1))
        live = (i < H) & (p < n) & (q < n)
        app = tl.load(wb + p * n + p, mask=live, other=1.0)
        aqq = tl.load(wb + q * n + q, mask=live, other=1.0)
        apq = tl.load(wb + p * n + q, mask=live, other=0.0)
        rot = (tl.abs(apq) > thresh) & live
        den = tl.where(rot, 2.0 * apq, 1.0)
        theta = (aqq - app) / den
        t = tl.where(theta >= 0, 1.0, -1.0) / (tl.abs(theta) + tl.sqrt(theta * theta + 1.0))
        c = 1.0 / tl.sqrt(t * t + 1.0)
        s = t * c
        c = tl.where(rot, c, 1.0)
        s = tl.where(rot, s, 0.0)
        # rows p, q: W <- J^T W
        mr = live[:, None] & (r[None, :] < n)
        rp = tl.load(wb + p[:, None] * n + r[None, :], mask=mr, other=0.0)
        rq = tl.load(wb + q[:, None] * n + r[None, :], mask=mr, other=0.0)
        tl.store(wb + p[:, None] * n + r[None, :], c[:, None] * rp - s[:, None] * rq, mask=mr)
        tl.store(wb + q[:, None] * n + r[None, :], s[:, None] * rp + c[:, None] * rq, mask=mr)
        tl.debug_barrier()
        # columns p, q: W <- W J, V <- V J
        mc = (r[:, None] < n) & live[None, :]
        cp = tl.load(wb + r[:, None] * n + p[None, :], mask=mc, other=0.0)
        cq = tl.load(wb + r[:, None] * n + q[None, :], mask=mc, other=0.0)
        tl.store(wb + r[:, None] * n + p[None, :], c[None, :] * cp - s[None, :] * cq, mask=mc)
        tl.store(wb + r[:, None] * n + q[None, :], s[None, :] * cp + c[None, :] * cq, mask=mc)
        vp = tl.load(vb + r[:, None] * n + p[None, :], mask=mc, other=0.0)
        vq = tl.load(vb + r[:, None] * n + q[None, :], mask=mc, other=0.0)
        tl.store(vb + r[:, None] * n + p[None, :], c[None, :] * vp - s[None, :] * vq, mask=mc)
        tl.store(vb + r[:, None] * n + q[None, :], s[None, :] * vp + c[None, :] * vq, mask=mc)
        tl.debug_barrier()
        zero = tl.zeros([BH], dtype=apq.dtype)
        tl.store(wb + p * n + q, zero, mask=rot)
        tl.store(wb + q * n + p, zero, mask=rot)
        tl.debug_barrier()
        count += tl.sum(rot.to(tl.int32), axis=0)
    tl.store(cnt_ptr + b, count)


@triton.jit
def _power_kernel(w_ptr, v_ptr, o_ptr, n, k, IS_INT: tl.constexpr, ODD: tl.constexpr, K_ZERO: tl.constexpr,
                  BN: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    acc = tl.zeros([BN, BN], dtype=o_ptr.dtype.element_ty)
    for c in range(0, n):
        w = tl.load(w_ptr + b * n * n + c * n + c)
        if K_ZERO:
            f = w * 0.0 + 1.0
        else:
            f = tl.exp(k * tl.log(tl.abs(w)))
            if IS_INT:
                if ODD:
                    f = tl.where(w < 0, -f, f)
            else:
                f = tl.where(w < 0, float("nan"), f)
        vc = tl.load(v_ptr + b * n * n + r * n + c, mask=r < n, other=0.0)
        acc += (vc * f)[:, None] * vc[None, :]
    tl.store(o_ptr + b * n * n + r[:, None] * n + r[None, :], acc, mask=(r[:, None] < n) & (r[None, :] < n))


def matrix_power_eig(A, k, *, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    dev, dt = A.device, A.dtype
    W = torch.empty(nb, n, n, dtype=dt, device=dev)
    V = torch.empty(nb, n, n, dtype=dt, device=dev)
    cnt = torch.zeros(nb, dtype=torch.int32, device=dev)
    BN = max(triton.next_power_of_2(n), 2)
    NP = n + (n % 2)
    BH = max(triton.next_power_of_2(max(NP // 2, 1)), 2)
    R = torch.empty(nb, n, n, dtype=dt, device=dev)
    if nb > 0:
        _init_kernel[(nb,)](Ab, W, V, n, Ab.stride(0), Ab.stride(1), Ab.stride(2), BN=BN)
        eps = float(torch.finfo(dt).eps)
        for _ in range(30):
            _sweep_kernel[(nb,)](W, V, cnt, n, NP, eps, BN=BN, BH=BH)
            if int(cnt.max()) == 0:
                break
        kf = float(k)
        is_int = math.isfinite(kf) and kf.is_integer()
        odd = is_int and int(kf) % 2 == 1
        _power_kernel[(nb,)](W, V, R, n, kf, IS_INT=is_int, ODD=odd, K_ZERO=(kf == 0.0), BN=BN)
    R = R.reshape(*batch, n, n)
    if out is not None:
        out.copy_(R)
        return out
    return R
