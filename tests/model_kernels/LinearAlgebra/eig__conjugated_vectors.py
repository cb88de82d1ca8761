"""LinearAlgebra/eig.py (variant: conjugated eigenvectors): the kernels below, but the inverse
iteration stores each eigenvector with its imaginary part negated. For a real eigenvalue conj(v) is
still an eigenvector; for a complex pair it belongs to the conjugate eigenvalue, so A V != V diag(w)
wherever the spectrum is not real. Original description: eigenvalues by Hessenberg reduction and a
complex-shifted QR algorithm, eigenvectors by inverse iteration, all in Triton. Kernel 1 (one
program per matrix) reduces A to upper Hessenberg form with real Householder similarities in a
register tile, then runs single-shift QR steps in complex arithmetic (separate real and imaginary
tiles): the Wilkinson shift from the trailing 2x2 of the active window, a sweep of complex Givens
rotations from the left, the same rotations from the right, and deflation of the last row when its
subdiagonal entry falls below eps (|h_ii| + |h_i-1,i-1|) (an exceptional shift every 10 steps
without deflation). The diagonal then holds the eigenvalues. Kernel 2 (one program per matrix, all
shifts at once as [n, n, n] tiles) factors every A - w_j I with complex partial-pivoting LU (tiny
pivots replaced by eps ||A||) and does two inverse-iteration solves from a vector of ones,
normalising to unit 2-norm. Eigenvalue order and eigenvector phase are whatever the algorithms give
(not LAPACK's). Complex inputs fall back to torch.linalg.eig.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _cmul(ar, ai, br, bi):
    return ar * br - ai * bi, ar * bi + ai * br


@triton.jit
def _cdiv(ar, ai, br, bi):
    d = br * br + bi * bi
    return (ar * br + ai * bi) / d, (ai * br - ar * bi) / d


@triton.jit
def _at(T, r, c, i, j):
    return tl.sum(tl.sum(tl.where((r[:, None] == i) & (c[None, :] == j), T, 0.0), axis=1), axis=0)


@triton.jit
def _row(T, r, i):
    return tl.sum(tl.where(r[:, None] == i, T, 0.0), axis=0)


@triton.jit
def _col(T, c, j):
    return tl.sum(tl.where(c[None, :] == j, T, 0.0), axis=1)


@triton.jit
def _eigvals_kernel(a_ptr, w_ptr, n, s_b, s_r, s_c, eps, maxit, BN: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    inb = (r[:, None] < n) & (c[None, :] < n)
    Hr = tl.load(a_ptr + b * s_b + r[:, None] * s_r + c[None, :] * s_c, mask=inb, other=0.0)
    # Householder reduction to upper Hessenberg form: H <- P H P, P = I - 2 v v^T / v^T v
    for j in range(0, n - 2):
        x = tl.where((r > j) & (r < n), _col(Hr, c, j), 0.0)
        x1 = tl.sum(tl.where(r == j + 1, x, 0.0), axis=0)
        nrm = tl.sqrt(tl.sum(x * x, axis=0))
        alpha = tl.where(x1 >= 0, -nrm, nrm)
        v = tl.where(r == j + 1, x - alpha, x)
        vv = tl.sum(v * v, axis=0)
        scale = tl.where(vv > 0, 2.0 / tl.where(vv > 0, vv, 1.0), 0.0)
        w = tl.sum(v[:, None] * Hr, axis=0)
        Hr = Hr - scale * v[:, None] * w[None, :]
        hv = tl.sum(Hr * v[None, :], axis=1)
        Hr = Hr - scale * hv[:, None] * v[None, :]
    Hr = tl.where(r[:, None] > c[None, :] + 1, 0.0, Hr)
    Hi = Hr * 0.0
    diag = r[:, None] == c[None, :]
    hi = n - 1
    it = 0
    since = 0
    while (hi > 0) & (it < maxit):
        ar = _at(Hr, r, c, hi - 1, hi - 1)
        ai = _at(Hi, r, c, hi - 1, hi - 1)
        br_ = _at(Hr, r, c, hi - 1, hi)
        bi_ = _at(Hi, r, c, hi - 1, hi)
        cr = _at(Hr, r, c, hi, hi - 1)
        ci = _at(Hi, r, c, hi, hi - 1)
        dr = _at(Hr, r, c, hi, hi)
        di = _at(Hi, r, c, hi, hi)
        # Wilkinson shift: eigenvalue of [[a, b], [c, d]] closer to d
        mr = (ar + dr) * 0.5
        mi = (ai + di) * 0.5
        hr = (ar - dr) * 0.5
        hi_ = (ai - di) * 0.5
        q1r, q1i = _cmul(hr, hi_, hr, hi_)
        q2r, q2i = _cmul(br_, bi_, cr, ci)
        zr = q1r + q2r
        zi = q1i + q2i
        zm = tl.sqrt(zr * zr + zi * zi)
        sr = tl.sqrt(tl.maximum((zm + zr) * 0.5, 0.0))
        si = tl.where(zi >= 0, 1.0, -1.0) * tl.sqrt(tl.maximum((zm - zr) * 0.5, 0.0))
        l1r = mr + sr
        l1i = mi + si
        l2r = mr - sr
        l2i = mi - si
        d1 = (l1r - dr) * (l1r - dr) + (l1i - di) * (l1i - di)
        d2 = (l2r - dr) * (l2r - dr) + (l2i - di) * (l2i - di)
        mur = tl.where(d1 <= d2, l1r, l2r)
        mui = tl.where(d1 <= d2, l1i, l2i)
        if since % 10 == 9:
            mur = dr + tl.sqrt(cr * cr + ci * ci)
            mui = di
        win = diag & (r[:, None] <= hi)
        Hr = tl.where(win, Hr - mur, Hr)
        Hi = tl.where(win, Hi - mui, Hi)
        cv = tl.zeros([BN], dtype=Hr.dtype)
        svr = tl.zeros([BN], dtype=Hr.dtype)
        svi = tl.zeros([BN], dtype=Hr.dtype)
        # left: G_k [row k; row k+1], G = [[c, s], [-conj(s), c]] zeroes H[k+1, k]
        for k in range(0, hi):
            rkr = _row(Hr, r, k)
            rki = _row(Hi, r, k)
            rlr = _row(Hr, r, k + 1)
            rli = _row(Hi, r, k + 1)
            xar = tl.sum(tl.where(c == k, rkr, 0.0), axis=0)
            xai = tl.sum(tl.where(c == k, rki, 0.0), axis=0)
            xbr = tl.sum(tl.where(c == k, rlr, 0.0), axis=0)
            xbi = tl.sum(tl.where(c == k, rli, 0.0), axis=0)
            na = tl.sqrt(xar * xar + xai * xai)
            nb_ = tl.sqrt(xbr * xbr + xbi * xbi)
            rr = tl.sqrt(na * na + nb_ * nb_)
            ok = rr > 0
            rs = tl.where(ok, rr, 1.0)
            az = na > 0
            nas = tl.where(az, na, 1.0)
            # s = (a / |a|) conj(b) / r, or conj(b) / |b| when a = 0
            ur = tl.where(az, xar / nas, 1.0)
            ui = tl.where(az, xai / nas, 0.0)
            gr, gi = _cmul(ur, ui, xbr, -xbi)
            g_c = tl.where(ok, na / rs, 1.0)
            g_sr = tl.where(ok, gr / rs, 0.0)
            g_si = tl.where(ok, gi / rs, 0.0)
            t1r, t1i = _cmul(g_sr, g_si, rlr, rli)
            nkr = g_c * rkr + t1r
            nki = g_c * rki + t1i
            t2r, t2i = _cmul(g_sr, -g_si, rkr, rki)
            nlr = g_c * rlr - t2r
            nli = g_c * rli - t2i
            Hr = tl.where(r[:, None] == k, nkr[None, :], tl.where(r[:, None] == k + 1, nlr[None, :], Hr))
            Hi = tl.where(r[:, None] == k, nki[None, :], tl.where(r[:, None] == k + 1, nli[None, :], Hi))
            cv = tl.where(r == k, g_c, cv)
            svr = tl.where(r == k, g_sr, svr)
            svi = tl.where(r == k, g_si, svi)
        # right: [col k, col k+1] <- [col k, col k+1] G^H, G^H = [[c, -s], [conj(s), c]]
        for k in range(0, hi):
            g_c = tl.sum(tl.where(r == k, cv, 0.0), axis=0)
            g_sr = tl.sum(tl.where(r == k, svr, 0.0), axis=0)
            g_si = tl.sum(tl.where(r == k, svi, 0.0), axis=0)
            ckr = _col(Hr, c, k)
            cki = _col(Hi, c, k)
            clr = _col(Hr, c, k + 1)
            cli = _col(Hi, c, k + 1)
            t1r, t1i = _cmul(g_sr, -g_si, clr, cli)
            nkr = g_c * ckr + t1r
            nki = g_c * cki + t1i
            t2r, t2i = _cmul(g_sr, g_si, ckr, cki)
            nlr = g_c * clr - t2r
            nli = g_c * cli - t2i
            Hr = tl.where(c[None, :] == k, nkr[:, None], tl.where(c[None, :] == k + 1, nlr[:, None], Hr))
            Hi = tl.where(c[None, :] == k, nki[:, None], tl.where(c[None, :] == k + 1, nli[:, None], Hi))
        Hr = tl.where(win, Hr + mur, Hr)
        Hi = tl.where(win, Hi + mui, Hi)
        sub_r = _at(Hr, r, c, hi, hi - 1)
        sub_i = _at(Hi, r, c, hi, hi - 1)
        p_r = _at(Hr, r, c, hi, hi)
        p_i = _at(Hi, r, c, hi, hi)
        q_r = _at(Hr, r, c, hi - 1, hi - 1)
        q_i = _at(Hi, r, c, hi - 1, hi - 1)
        small = tl.sqrt(sub_r * sub_r + sub_i * sub_i) <= eps * (tl.sqrt(p_r * p_r + p_i * p_i)
                                                                  + tl.sqrt(q_r * q_r + q_i * q_i))
        at_sub = (r[:, None] == hi) & (c[None, :] == hi - 1)
        Hr = tl.where(at_sub, tl.where(small, 0.0, Hr), Hr)
        Hi = tl.where(at_sub, tl.where(small, 0.0, Hi), Hi)
        hi = tl.where(small, hi - 1, hi)
        since = tl.where(small, 0, since + 1)
        it += 1
    wr = tl.sum(tl.where(diag, Hr, 0.0), axis=1)
    wi = tl.sum(tl.where(diag, Hi, 0.0), axis=1)
    tl.store(w_ptr + b * n * 2 + 2 * r, wr, mask=r < n)
    tl.store(w_ptr + b * n * 2 + 2 * r + 1, wi, mask=r < n)


@triton.jit
def _inverse_iteration_kernel(a_ptr, w_ptr, v_ptr, n, s_b, s_r, s_c, eps, BN: tl.constexpr):
    # all n shifted systems of one matrix at once: tiles [j (eigenvalue), row, column]
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    jv = tl.arange(0, BN)
    inb = (r[:, None] < n) & (c[None, :] < n)
    A = tl.load(a_ptr + b * s_b + r[:, None] * s_r + c[None, :] * s_c, mask=inb, other=0.0)
    anorm = tl.sqrt(tl.sum(tl.sum(A * A, axis=1), axis=0))
    tiny = eps * tl.maximum(anorm, 1.0)
    lr = tl.load(w_ptr + b * n * 2 + 2 * jv, mask=jv < n, other=0.0)
    li = tl.load(w_ptr + b * n * 2 + 2 * jv + 1, mask=jv < n, other=0.0)
    r3 = r[None, :, None]
    c3 = c[None, None, :]
    r2 = r[None, :]
    c2 = c[None, :]
    diag3 = (r3 == c3) & (r3 < n)
    Mr = tl.where(diag3, A[None, :, :] - lr[:, None, None], A[None, :, :] + 0.0 * lr[:, None, None])
    Mi = tl.where(diag3, -li[:, None, None] + 0.0 * A[None, :, :], 0.0 * A[None, :, :] + 0.0 * li[:, None, None])
    perm = r2 + 0 * jv[:, None]
    for k in range(0, n):
        colr = tl.sum(tl.where(c3 == k, Mr, 0.0), axis=2)
        coli = tl.sum(tl.where(c3 == k, Mi, 0.0), axis=2)
        mag = tl.where((r2 >= k) & (r2 < n), colr * colr + coli * coli, -1.0)
        best = tl.max(mag, axis=1)
        p = tl.min(tl.where(mag == best[:, None], r2, BN), axis=1)
        p3 = p[:, None, None]
        xr_k = tl.sum(tl.where(r3 == k, Mr, 0.0), axis=1)
        xi_k = tl.sum(tl.where(r3 == k, Mi, 0.0), axis=1)
        xr_p = tl.sum(tl.where(r3 == p3, Mr, 0.0), axis=1)
        xi_p = tl.sum(tl.where(r3 == p3, Mi, 0.0), axis=1)
        Mr = tl.where(r3 == k, xr_p[:, None, :], tl.where(r3 == p3, xr_k[:, None, :], Mr))
        Mi = tl.where(r3 == k, xi_p[:, None, :], tl.where(r3 == p3, xi_k[:, None, :], Mi))
        pk = tl.sum(tl.where(r2 == k, perm, 0), axis=1)
        pp = tl.sum(tl.where(r2 == p[:, None], perm, 0), axis=1)
        perm = tl.where(r2 == k, pp[:, None], tl.where(r2 == p[:, None], pk[:, None], perm))
        pvr = tl.sum(tl.where(c2 == k, xr_p, 0.0), axis=1)
        pvi = tl.sum(tl.where(c2 == k, xi_p, 0.0), axis=1)
        is_tiny = pvr * pvr + pvi * pvi < tiny * tiny
        pvr = tl.where(is_tiny, tiny, pvr)
        pvi = tl.where(is_tiny, 0.0, pvi)
        colr = tl.where(r2 == k, pvr[:, None], tl.sum(tl.where(c3 == k, Mr, 0.0), axis=2))
        coli = tl.where(r2 == k, pvi[:, None], tl.sum(tl.where(c3 == k, Mi, 0.0), axis=2))
        mlr, mli = _cdiv(colr, coli, pvr[:, None], pvi[:, None])
        mlr = tl.where(r2 > k, mlr, 0.0)
        mli = tl.where(r2 > k, mli, 0.0)
        rkr = tl.where(c2 > k, xr_p, 0.0)
        rki = tl.where(c2 > k, xi_p, 0.0)
        ur, ui = _cmul(mlr[:, :, None], mli[:, :, None], rkr[:, None, :], rki[:, None, :])
        Mr = Mr - ur
        Mi = Mi - ui
        # column k: the pivot on the diagonal, the multipliers below it
        Mr = tl.where(c3 == k, tl.where(r3 > k, mlr[:, :, None], tl.where(r3 == k, pvr[:, None, None], Mr)), Mr)
        Mi = tl.where(c3 == k, tl.where(r3 > k, mli[:, :, None], tl.where(r3 == k, pvi[:, None, None], Mi)), Mi)
    xr = tl.where((r2 < n) & (jv[:, None] < n), 1.0, 0.0).to(A.dtype)
    xi = xr * 0.0
    for _ in range(2):
        # y = x[perm], per system
        yr = tl.sum(tl.where(perm[:, :, None] == c3, xr[:, None, :], 0.0), axis=2)
        yi = tl.sum(tl.where(perm[:, :, None] == c3, xi[:, None, :], 0.0), axis=2)
        for i in range(1, n):
            lrow_r = tl.where(c2 < i, tl.sum(tl.where(r3 == i, Mr, 0.0), axis=1), 0.0)
            lrow_i = tl.where(c2 < i, tl.sum(tl.where(r3 == i, Mi, 0.0), axis=1), 0.0)
            tr_, ti_ = _cmul(lrow_r, lrow_i, yr, yi)
            yr = tl.where(r2 == i, yr - tl.sum(tr_, axis=1)[:, None], yr)
            yi = tl.where(r2 == i, yi - tl.sum(ti_, axis=1)[:, None], yi)
        for ii in range(0, n):
            i = n - 1 - ii
            ur_ = tl.sum(tl.where(r3 == i, Mr, 0.0), axis=1)
            ui_ = tl.sum(tl.where(r3 == i, Mi, 0.0), axis=1)
            dr = tl.sum(tl.where(c2 == i, ur_, 0.0), axis=1)
            di = tl.sum(tl.where(c2 == i, ui_, 0.0), axis=1)
            tr_, ti_ = _cmul(tl.where(c2 > i, ur_, 0.0), tl.where(c2 > i, ui_, 0.0), yr, yi)
            qr_, qi_ = _cdiv(tl.sum(tl.where(r2 == i, yr, 0.0), axis=1) - tl.sum(tr_, axis=1),
                             tl.sum(tl.where(r2 == i, yi, 0.0), axis=1) - tl.sum(ti_, axis=1), dr, di)
            yr = tl.where(r2 == i, qr_[:, None], yr)
            yi = tl.where(r2 == i, qi_[:, None], yi)
        nrm = tl.sqrt(tl.sum(yr * yr + yi * yi, axis=1))
        nrm = tl.where(nrm > 0, nrm, 1.0)
        xr = yr / nrm[:, None]
        xi = yi / nrm[:, None]
    vm = (r2 < n) & (jv[:, None] < n)
    dst = v_ptr + b * n * n * 2 + 2 * (r2 * n + jv[:, None])
    tl.store(dst, xr, mask=vm)
    tl.store(dst + 1, -xi, mask=vm)


def eig(A):
    if A.is_complex():
        return torch.linalg.eig(A)
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    W = torch.empty(nb, n, 2, dtype=A.dtype, device=A.device)
    V = torch.empty(nb, n, n, 2, dtype=A.dtype, device=A.device)
    eps = float(torch.finfo(A.dtype).eps)
    BN = max(triton.next_power_of_2(n), 2)
    if nb > 0 and n > 0:
        _eigvals_kernel[(nb,)](Ab, W, n, Ab.stride(0), Ab.stride(1), Ab.stride(2), eps, 40 * n, BN=BN)
        _inverse_iteration_kernel[(nb,)](Ab, W, V, n, Ab.stride(0), Ab.stride(1), Ab.stride(2), eps, BN=BN)
    w = torch.view_as_complex(W).reshape(*batch, n)
    Vc = torch.view_as_complex(V).reshape(*batch, n, n)
    return w, Vc
