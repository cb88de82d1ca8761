"""LinearAlgebra/solve_symmetric_ldl.py (variant: interchanges not undone): the kernel below applies
each pivot interchange to b on the way down but the back substitution never swaps the rows back,
so x comes out in the pivoted order (right only when no interchange happened).
Original description: Bunch-Kaufman LDL^T (LDL^H) factorisation and solve in one
Triton program per system. A's lower triangle is mirrored into a full symmetric (Hermitian) register
tile, complex values as separate real and imaginary tiles (torch.view_as_real). Each step picks a
1x1 or 2x2 pivot as LAPACK's sytf2 does (alpha = (1 + sqrt(17)) / 8, true moduli), interchanges rows
and columns of the trailing block and the same rows of the right-hand-side tile, and eliminates
below the pivot block in both (forward solve with P(k) L(k) as the factorisation goes). Then the
block-diagonal D is solved block by block and the back substitution with L^T (L^H) runs from the
last block to the first, undoing each interchange after its block (LAPACK sytrs order).
"""
# expect: incorrect
import math

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
def _row(T, r, i):
    return tl.sum(tl.where(r[:, None] == i, T, 0.0), axis=0)


@triton.jit
def _col(T, c, j):
    return tl.sum(tl.where(c[None, :] == j, T, 0.0), axis=1)


@triton.jit
def _pick(v, r, i):
    return tl.sum(tl.where(r == i, v, 0.0), axis=0)


@triton.jit
def _ldl_solve_kernel(a_ptr, b_ptr, x_ptr, n, k_rhs, s_r, s_c, b_r, b_c, alpha,
                      IS_COMPLEX: tl.constexpr, HERM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    kc = tl.program_id(0) * BK + tl.arange(0, BK)
    inb = (r[:, None] < n) & (c[None, :] < n)
    lowm = inb & (r[:, None] >= c[None, :])
    upm = inb & (r[:, None] < c[None, :])
    lo = a_ptr + r[:, None] * s_r + c[None, :] * s_c
    mi = a_ptr + c[None, :] * s_r + r[:, None] * s_c
    Tr = tl.load(lo, mask=lowm, other=0.0) + tl.load(mi, mask=upm, other=0.0)
    bm = (r[:, None] < n) & (kc[None, :] < k_rhs)
    bp = b_ptr + r[:, None] * b_r + kc[None, :] * b_c
    Br = tl.load(bp, mask=bm, other=0.0)
    if IS_COMPLEX:
        ui = tl.load(mi + 1, mask=upm, other=0.0)
        if HERM:
            ui = -ui
        Ti = tl.load(lo + 1, mask=lowm, other=0.0) + ui
        if HERM:
            Ti = tl.where(r[:, None] == c[None, :], 0.0, Ti)
        Bi = tl.load(bp + 1, mask=bm, other=0.0)
    else:
        Ti = Tr * 0.0
        Bi = Br * 0.0
    if HERM:
        cs = -1.0
    else:
        cs = 1.0
    piv = tl.zeros([BN], dtype=tl.int32)
    k = 0
    while k < n:
        colr = _col(Tr, c, k)
        coli = _col(Ti, c, k)
        akkr = _pick(colr, r, k)
        akki = _pick(coli, r, k)
        if HERM:
            absakk = tl.abs(akkr)
        else:
            absakk = tl.sqrt(akkr * akkr + akki * akki)
        below = (r > k) & (r < n)
        mag = tl.where(below, tl.sqrt(colr * colr + coli * coli), -1.0)
        colmax = tl.maximum(tl.max(mag, axis=0), 0.0)
        imax = tl.min(tl.where(below & (mag == colmax), r, BN), axis=0)
        rowr = _row(Tr, r, imax)
        rowi = _row(Ti, r, imax)
        rmag = tl.sqrt(rowr * rowr + rowi * rowi)
        rowmax = tl.max(tl.where((c >= k) & (c < n) & (c != imax), rmag, 0.0), axis=0)
        aiir = _pick(rowr, c, imax)
        aiii = _pick(rowi, c, imax)
        if HERM:
            absaii = tl.abs(aiir)
        else:
            absaii = tl.sqrt(aiir * aiir + aiii * aiii)
        zero_col = tl.maximum(absakk, colmax) == 0
        keep = zero_col | (absakk >= alpha * colmax) | (absakk * rowmax >= alpha * colmax * colmax)
        one_swap = (~keep) & (absaii >= alpha * rowmax)
        two = ~(keep | one_swap)
        kstep = tl.where(two, 2, 1)
        kp = tl.where(keep, k, imax)
        kk = k + kstep - 1
        # interchange kk <-> kp: rows and columns of the trailing block, rows of B
        tm_c = c[None, :] >= k
        tm_r = r[:, None] >= k
        xr_kk = _row(Tr, r, kk)
        xr_kp = _row(Tr, r, kp)
        xi_kk = _row(Ti, r, kk)
        xi_kp = _row(Ti, r, kp)
        Tr = tl.where(tm_c & (r[:, None] == kk), xr_kp[None, :], tl.where(tm_c & (r[:, None] == kp), xr_kk[None, :], Tr))
        Ti = tl.where(tm_c & (r[:, None] == kk), xi_kp[None, :], tl.where(tm_c & (r[:, None] == kp), xi_kk[None, :], Ti))
        yr_kk = _col(Tr, c, kk)
        yr_kp = _col(Tr, c, kp)
        yi_kk = _col(Ti, c, kk)
        yi_kp = _col(Ti, c, kp)
        Tr = tl.where(tm_r & (c[None, :] == kk), yr_kp[:, None], tl.where(tm_r & (c[None, :] == kp), yr_kk[:, None], Tr))
        Ti = tl.where(tm_r & (c[None, :] == kk), yi_kp[:, None], tl.where(tm_r & (c[None, :] == kp), yi_kk[:, None], Ti))
        br_kk = _row(Br, r, kk)
        br_kp = _row(Br, r, kp)
        bi_kk = _row(Bi, r, kk)
        bi_kp = _row(Bi, r, kp)
        Br = tl.where(r[:, None] == kk, br_kp[None, :], tl.where(r[:, None] == kp, br_kk[None, :], Br))
        Bi = tl.where(r[:, None] == kk, bi_kp[None, :], tl.where(r[:, None] == kp, bi_kk[None, :], Bi))
        if two:
            a1r = _col(Tr, c, k)
            a1i = _col(Ti, c, k)
            a2r = _col(Tr, c, k + 1)
            a2i = _col(Ti, c, k + 1)
            d11r = _pick(a1r, r, k)
            d11i = _pick(a1i, r, k)
            d21r = _pick(a1r, r, k + 1)
            d21i = _pick(a1i, r, k + 1)
            d22r = _pick(a2r, r, k + 1)
            d22i = _pick(a2i, r, k + 1)
            er, ei = d21r, cs * d21i                       # D[k, k + 1]
            pr, pi = _cmul(d11r, d11i, d22r, d22i)
            qr, qi = _cmul(d21r, d21i, er, ei)
            detr = pr - qr
            deti = pi - qi
            t1r, t1i = _cmul(a1r, a1i, d22r, d22i)
            t2r, t2i = _cmul(a2r, a2i, d21r, d21i)
            l1r, l1i = _cdiv(t1r - t2r, t1i - t2i, detr, deti)
            t3r, t3i = _cmul(a2r, a2i, d11r, d11i)
            t4r, t4i = _cmul(a1r, a1i, er, ei)
            l2r, l2i = _cdiv(t3r - t4r, t3i - t4i, detr, deti)
            tr2 = (r[:, None] > k + 1) & (c[None, :] > k + 1)
            u1r, u1i = _cmul(l1r[:, None], l1i[:, None], a1r[None, :], (cs * a1i)[None, :])
            u2r, u2i = _cmul(l2r[:, None], l2i[:, None], a2r[None, :], (cs * a2i)[None, :])
            Tr = tl.where(tr2, Tr - u1r - u2r, Tr)
            Ti = tl.where(tr2, Ti - u1i - u2i, Ti)
            lb = r[:, None] > k + 1
            Tr = tl.where(lb & (c[None, :] == k), l1r[:, None], tl.where(lb & (c[None, :] == k + 1), l2r[:, None], Tr))
            Ti = tl.where(lb & (c[None, :] == k), l1i[:, None], tl.where(lb & (c[None, :] == k + 1), l2i[:, None], Ti))
            # forward: B[i] -= l1_i B[k] + l2_i B[k + 1]
            b1r = _row(Br, r, k)
            b1i = _row(Bi, r, k)
            b2r = _row(Br, r, k + 1)
            b2i = _row(Bi, r, k + 1)
            v1r, v1i = _cmul(l1r[:, None], l1i[:, None], b1r[None, :], b1i[None, :])
            v2r, v2i = _cmul(l2r[:, None], l2i[:, None], b2r[None, :], b2i[None, :])
            Br = tl.where(lb, Br - v1r - v2r, Br)
            Bi = tl.where(lb, Bi - v1i - v2i, Bi)
            piv = tl.where((r == k) | (r == k + 1), -(kp + 1), piv)
        else:
            ar = _col(Tr, c, k)
            ai = _col(Ti, c, k)
            dr = _pick(ar, r, k)
            di = _pick(ai, r, k)
            if HERM:
                di = di * 0.0
            nz = (dr * dr + di * di) > 0
            lr, li = _cdiv(ar, ai, tl.where(nz, dr, 1.0), di)
            lr = tl.where(nz, lr, 0.0)
            li = tl.where(nz, li, 0.0)
            tr1 = (r[:, None] > k) & (c[None, :] > k)
            ur, uim = _cmul(lr[:, None], li[:, None], ar[None, :], (cs * ai)[None, :])
            Tr = tl.where(tr1, Tr - ur, Tr)
            Ti = tl.where(tr1, Ti - uim, Ti)
            lb = r[:, None] > k
            Tr = tl.where(lb & (c[None, :] == k), lr[:, None], Tr)
            Ti = tl.where(lb & (c[None, :] == k), li[:, None], Ti)
            if HERM:
                Ti = tl.where((r[:, None] == k) & (c[None, :] == k), 0.0, Ti)
            b1r = _row(Br, r, k)
            b1i = _row(Bi, r, k)
            v1r, v1i = _cmul(lr[:, None], li[:, None], b1r[None, :], b1i[None, :])
            Br = tl.where(lb, Br - v1r, Br)
            Bi = tl.where(lb, Bi - v1i, Bi)
            piv = tl.where(r == k, kp + 1, piv)
        k += kstep
    # D solve, block by block
    k = 0
    while k < n:
        pk = tl.sum(tl.where(r == k, piv, 0), axis=0)
        d11r = _pick(_row(Tr, r, k), c, k)
        d11i = _pick(_row(Ti, r, k), c, k)
        b1r = _row(Br, r, k)
        b1i = _row(Bi, r, k)
        if pk < 0:
            d21r = _pick(_row(Tr, r, k + 1), c, k)
            d21i = _pick(_row(Ti, r, k + 1), c, k)
            d22r = _pick(_row(Tr, r, k + 1), c, k + 1)
            d22i = _pick(_row(Ti, r, k + 1), c, k + 1)
            er, ei = d21r, cs * d21i
            pr, pi = _cmul(d11r, d11i, d22r, d22i)
            qr, qi = _cmul(er, ei, d21r, d21i)
            detr = pr - qr
            deti = pi - qi
            b2r = _row(Br, r, k + 1)
            b2i = _row(Bi, r, k + 1)
            # x1 = (d22 b1 - e b2) / det, x2 = (d11 b2 - d21 b1) / det
            t1r, t1i = _cmul(d22r, d22i, b1r, b1i)
            t2r, t2i = _cmul(er, ei, b2r, b2i)
            x1r, x1i = _cdiv(t1r - t2r, t1i - t2i, detr, deti)
            t3r, t3i = _cmul(d11r, d11i, b2r, b2i)
            t4r, t4i = _cmul(d21r, d21i, b1r, b1i)
            x2r, x2i = _cdiv(t3r - t4r, t3i - t4i, detr, deti)
            Br = tl.where(r[:, None] == k, x1r[None, :], tl.where(r[:, None] == k + 1, x2r[None, :], Br))
            Bi = tl.where(r[:, None] == k, x1i[None, :], tl.where(r[:, None] == k + 1, x2i[None, :], Bi))
            k += 2
        else:
            x1r, x1i = _cdiv(b1r, b1i, d11r, d11i)
            Br = tl.where(r[:, None] == k, x1r[None, :], Br)
            Bi = tl.where(r[:, None] == k, x1i[None, :], Bi)
            k += 1
    # back substitution with L(k)^T (L(k)^H), last block first, then undo the interchange
    k = n - 1
    while k >= 0:
        pk = tl.sum(tl.where(r == k, piv, 0), axis=0)
        two = pk < 0
        top = tl.where(two, k - 1, k)       # first row of the block
        for jj in range(0, 2):
            j = top + jj
            if j <= k:
                lr = tl.where(r > k, _col(Tr, c, j), 0.0)
                li = tl.where(r > k, _col(Ti, c, j), 0.0)
                # B[j] -= sum_i conj?(L[i, j]) B[i]
                sr, si = _cmul(lr[:, None], (cs * li)[:, None], Br, Bi)
                sr = tl.sum(sr, axis=0)
                si = tl.sum(si, axis=0)
                Br = tl.where(r[:, None] == j, Br - sr[None, :], Br)
                Bi = tl.where(r[:, None] == j, Bi - si[None, :], Bi)
        p = tl.where(two, -pk, pk) - 1
        br_k = _row(Br, r, k)
        br_p = _row(Br, r, p)
        bi_k = _row(Bi, r, k)
        bi_p = _row(Bi, r, p)
        k = top - 1
    xp = x_ptr + 2 * (r[:, None] * k_rhs + kc[None, :])
    tl.store(xp, Br, mask=bm)
    tl.store(xp + 1, Bi, mask=bm)


def solve_symmetric_ldl(A, b, hermitian=False, out=None):
    n = A.shape[-1]
    dtype = torch.promote_types(A.dtype, b.dtype)
    vector = b.dim() == 1
    B = (b.unsqueeze(-1) if vector else b).to(dtype)
    A2 = A.to(dtype)
    k = B.shape[-1]
    is_complex = dtype.is_complex
    if is_complex:
        a_src = torch.view_as_real(A2.resolve_conj())
        b_src = torch.view_as_real(B.resolve_conj())
        real_dtype = a_src.dtype
    else:
        a_src, b_src, real_dtype = A2, B, dtype
    X = torch.empty(n, k, 2, dtype=real_dtype, device=A.device)
    BK = min(max(triton.next_power_of_2(k), 2), 16)
    if n > 0 and k > 0:
        _ldl_solve_kernel[(triton.cdiv(k, BK),)](a_src, b_src, X, n, k, a_src.stride(0), a_src.stride(1),
                                                 b_src.stride(0), b_src.stride(1), (1.0 + math.sqrt(17.0)) / 8.0,
                                                 IS_COMPLEX=is_complex, HERM=bool(hermitian) and is_complex,
                                                 BN=max(triton.next_power_of_2(n), 2), BK=BK)
    x = torch.view_as_complex(X) if is_complex else X[..., 0].contiguous()
    if vector:
        x = x.squeeze(-1)
    if out is not None:
        out.copy_(x)
        return out
    return x
