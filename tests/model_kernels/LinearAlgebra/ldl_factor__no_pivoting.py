"""LinearAlgebra/ldl_factor.py, weaker variant: the Bunch-Kaufman kernel of ldl_factor.py run with
alpha = 0, so every step keeps the 1x1 diagonal pivot: plain LDL^T without pivoting (pivots
1..n). Right while no leading diagonal entry is zero or tiny; on a symmetric indefinite matrix
with zero diagonal blocks (kbx's saddle cases) it divides by zero.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _ldl_kernel(a_ptr, ld_ptr, piv_ptr, n, s_b, s_r, s_c, alpha,
                IS_COMPLEX: tl.constexpr, HERM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BN)
    c = tl.arange(0, BN)
    inb = (r[:, None] < n) & (c[None, :] < n)
    lowm = inb & (r[:, None] >= c[None, :])
    upm = inb & (r[:, None] < c[None, :])
    base = a_ptr + b * s_b
    lo = base + r[:, None] * s_r + c[None, :] * s_c
    mi = base + c[None, :] * s_r + r[:, None] * s_c        # A[c, r]: mirror of the lower triangle
    Tr = tl.load(lo, mask=lowm, other=0.0) + tl.load(mi, mask=upm, other=0.0)
    if IS_COMPLEX:
        ui = tl.load(mi + 1, mask=upm, other=0.0)
        if HERM:
            ui = -ui
        Ti = tl.load(lo + 1, mask=lowm, other=0.0) + ui
        if HERM:
            Ti = tl.where(r[:, None] == c[None, :], 0.0, Ti)
    else:
        Ti = Tr * 0.0
    piv = tl.zeros([BN], dtype=tl.int32)
    k = 0
    while k < n:
        colr = tl.sum(tl.where(c[None, :] == k, Tr, 0.0), axis=1)
        coli = tl.sum(tl.where(c[None, :] == k, Ti, 0.0), axis=1)
        akkr = tl.sum(tl.where(r == k, colr, 0.0), axis=0)
        akki = tl.sum(tl.where(r == k, coli, 0.0), axis=0)
        if HERM:
            absakk = tl.abs(akkr)
        else:
            absakk = tl.sqrt(akkr * akkr + akki * akki)
        below = (r > k) & (r < n)
        mag = tl.where(below, tl.sqrt(colr * colr + coli * coli), -1.0)
        colmax = tl.maximum(tl.max(mag, axis=0), 0.0)
        imax = tl.min(tl.where(below & (mag == colmax), r, BN), axis=0)
        rowr = tl.sum(tl.where(r[:, None] == imax, Tr, 0.0), axis=0)
        rowi = tl.sum(tl.where(r[:, None] == imax, Ti, 0.0), axis=0)
        rmag = tl.sqrt(rowr * rowr + rowi * rowi)
        rowmax = tl.max(tl.where((c >= k) & (c < n) & (c != imax), rmag, 0.0), axis=0)
        aiir = tl.sum(tl.where(c == imax, rowr, 0.0), axis=0)
        aiii = tl.sum(tl.where(c == imax, rowi, 0.0), axis=0)
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
        # symmetric interchange of kk and kp inside the trailing block (rows and columns >= k)
        tm_r = (r[:, None] >= k)
        tm_c = (c[None, :] >= k)
        xr_kk = tl.sum(tl.where(r[:, None] == kk, Tr, 0.0), axis=0)
        xr_kp = tl.sum(tl.where(r[:, None] == kp, Tr, 0.0), axis=0)
        xi_kk = tl.sum(tl.where(r[:, None] == kk, Ti, 0.0), axis=0)
        xi_kp = tl.sum(tl.where(r[:, None] == kp, Ti, 0.0), axis=0)
        Tr = tl.where(tm_c & (r[:, None] == kk), xr_kp[None, :], tl.where(tm_c & (r[:, None] == kp), xr_kk[None, :], Tr))
        Ti = tl.where(tm_c & (r[:, None] == kk), xi_kp[None, :], tl.where(tm_c & (r[:, None] == kp), xi_kk[None, :], Ti))
        yr_kk = tl.sum(tl.where(c[None, :] == kk, Tr, 0.0), axis=1)
        yr_kp = tl.sum(tl.where(c[None, :] == kp, Tr, 0.0), axis=1)
        yi_kk = tl.sum(tl.where(c[None, :] == kk, Ti, 0.0), axis=1)
        yi_kp = tl.sum(tl.where(c[None, :] == kp, Ti, 0.0), axis=1)
        Tr = tl.where(tm_r & (c[None, :] == kk), yr_kp[:, None], tl.where(tm_r & (c[None, :] == kp), yr_kk[:, None], Tr))
        Ti = tl.where(tm_r & (c[None, :] == kk), yi_kp[:, None], tl.where(tm_r & (c[None, :] == kp), yi_kk[:, None], Ti))
        if HERM:
            cs = -1.0   # conjugate the right-hand factor of each update
        else:
            cs = 1.0
        if two:
            # 2x2 block D = [[d11, conj(d21)], [d21, d22]] (Hermitian) or [[d11, d21], [d21, d22]]
            a1r = tl.sum(tl.where(c[None, :] == k, Tr, 0.0), axis=1)
            a1i = tl.sum(tl.where(c[None, :] == k, Ti, 0.0), axis=1)
            a2r = tl.sum(tl.where(c[None, :] == k + 1, Tr, 0.0), axis=1)
            a2i = tl.sum(tl.where(c[None, :] == k + 1, Ti, 0.0), axis=1)
            d11r = tl.sum(tl.where(r == k, a1r, 0.0), axis=0)
            d11i = tl.sum(tl.where(r == k, a1i, 0.0), axis=0)
            d21r = tl.sum(tl.where(r == k + 1, a1r, 0.0), axis=0)
            d21i = tl.sum(tl.where(r == k + 1, a1i, 0.0), axis=0)
            d22r = tl.sum(tl.where(r == k + 1, a2r, 0.0), axis=0)
            d22i = tl.sum(tl.where(r == k + 1, a2i, 0.0), axis=0)
            # det = d11 d22 - d21 * (conj(d21) or d21)
            detr = d11r * d22r - d11i * d22i - (d21r * d21r - cs * d21i * d21i)
            deti = d11r * d22i + d11i * d22r - (d21r * (cs * d21i) + d21i * d21r)
            dd = detr * detr + deti * deti
            # numerators: l1 = a1 d22 - a2 d21, l2 = a2 d11 - a1 (conj(d21) or d21)
            n1r = a1r * d22r - a1i * d22i - (a2r * d21r - a2i * d21i)
            n1i = a1r * d22i + a1i * d22r - (a2r * d21i + a2i * d21r)
            n2r = a2r * d11r - a2i * d11i - (a1r * d21r - a1i * (cs * d21i))
            n2i = a2r * d11i + a2i * d11r - (a1r * (cs * d21i) + a1i * d21r)
            l1r = (n1r * detr + n1i * deti) / dd
            l1i = (n1i * detr - n1r * deti) / dd
            l2r = (n2r * detr + n2i * deti) / dd
            l2i = (n2i * detr - n2r * deti) / dd
            tr2 = (r[:, None] > k + 1) & (c[None, :] > k + 1)
            # T[i, j] -= l1_i conj?(a1_j) + l2_i conj?(a2_j)
            ur = l1r[:, None] * a1r[None, :] - l1i[:, None] * (cs * a1i)[None, :] \
                + l2r[:, None] * a2r[None, :] - l2i[:, None] * (cs * a2i)[None, :]
            uim = l1r[:, None] * (cs * a1i)[None, :] + l1i[:, None] * a1r[None, :] \
                + l2r[:, None] * (cs * a2i)[None, :] + l2i[:, None] * a2r[None, :]
            Tr = tl.where(tr2, Tr - ur, Tr)
            Ti = tl.where(tr2, Ti - uim, Ti)
            lb = r[:, None] > k + 1
            Tr = tl.where(lb & (c[None, :] == k), l1r[:, None], tl.where(lb & (c[None, :] == k + 1), l2r[:, None], Tr))
            Ti = tl.where(lb & (c[None, :] == k), l1i[:, None], tl.where(lb & (c[None, :] == k + 1), l2i[:, None], Ti))
            piv = tl.where((r == k) | (r == k + 1), -(kp + 1), piv)
        else:
            ar = tl.sum(tl.where(c[None, :] == k, Tr, 0.0), axis=1)
            ai = tl.sum(tl.where(c[None, :] == k, Ti, 0.0), axis=1)
            dr = tl.sum(tl.where(r == k, ar, 0.0), axis=0)
            di = tl.sum(tl.where(r == k, ai, 0.0), axis=0)
            if HERM:
                di = di * 0.0
            dd = dr * dr + di * di
            nz = dd > 0
            dds = tl.where(nz, dd, 1.0)
            lr = tl.where(nz, (ar * dr + ai * di) / dds, 0.0)
            li = tl.where(nz, (ai * dr - ar * di) / dds, 0.0)
            tr1 = (r[:, None] > k) & (c[None, :] > k)
            ur = lr[:, None] * ar[None, :] - li[:, None] * (cs * ai)[None, :]
            uim = lr[:, None] * (cs * ai)[None, :] + li[:, None] * ar[None, :]
            Tr = tl.where(tr1, Tr - ur, Tr)
            Ti = tl.where(tr1, Ti - uim, Ti)
            lb = r[:, None] > k
            Tr = tl.where(lb & (c[None, :] == k), lr[:, None], Tr)
            Ti = tl.where(lb & (c[None, :] == k), li[:, None], Ti)
            if HERM:
                Ti = tl.where((r[:, None] == k) & (c[None, :] == k), 0.0, Ti)
            piv = tl.where(r == k, kp + 1, piv)
        k += kstep
    ob = ld_ptr + b * n * n * 2
    dst = ob + 2 * (r[:, None] * n + c[None, :])
    tl.store(dst, tl.where(lowm, Tr, 0.0), mask=inb)
    tl.store(dst + 1, tl.where(lowm, Ti, 0.0), mask=inb)
    tl.store(piv_ptr + b * n + r, piv, mask=r < n)


def ldl_factor(A, hermitian=False, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    is_complex = A.is_complex()
    if is_complex:
        src = torch.view_as_real(Ab.resolve_conj())
        real_dtype = src.dtype
    else:
        src = Ab
        real_dtype = A.dtype
    work = torch.empty(nb, n, n, 2, dtype=real_dtype, device=A.device)
    piv = torch.empty(nb, n, dtype=torch.int32, device=A.device)
    if nb > 0 and n > 0:
        _ldl_kernel[(nb,)](src, work, piv, n, src.stride(0), src.stride(1), src.stride(2),
                           0.0, IS_COMPLEX=is_complex,
                           HERM=bool(hermitian) and is_complex, BN=max(triton.next_power_of_2(n), 2))
    LD = torch.view_as_complex(work) if is_complex else work[..., 0].contiguous()
    LD = LD.reshape(*batch, n, n)
    piv = piv.reshape(*batch, n)
    if out is not None:
        out[0].copy_(LD)
        out[1].copy_(piv)
        return out
    return LD, piv
