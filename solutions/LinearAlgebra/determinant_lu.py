"""LinearAlgebra/determinant_lu.py: det(A) = sign(P) * prod(diag(U)) from an LU factorisation done
with Triton programs per matrix (batched: one launch per step for the whole batch).

Design: matrices up to small_max = 64 (the cases, and the small perf sizes) are factored entirely
in registers: the matrix is one [NP x NP] tile (NP = next power of two) and each of the n
elimination steps is a few masked tile operations with two cross-warp reductions: pick the pivot
among the rows not yet pivoted (largest |a_ij|, lowest index on ties, as LAPACK's isamax, found by
one max over packed (|value| bits, index) keys), extract that row, multiply the pivot into the
running determinant and eliminate its column from the other unpivoted rows (no row swaps: the
sign of the resulting row order is counted from the pivot list once, at the end). No host
synchronisation, no pivot or factor tensors, no LAPACK/cuSOLVER setup.
Larger float32 matrices (the perf sizes 128 .. 1024) use a blocked right-looking LU. Per panel of
nb = 16 columns, one program factors the [n - k, 16] panel in registers; the pivot steps are the
serial part of the whole factorisation (n of them), so the panel is built for cheap steps: the 16
steps are unrolled and the tile is assembled by tl.join from its column loads, which keeps each
row's 32 values in one thread. Extracting column j and leaving columns <= j alone are then
compile-time register selections, and a step costs the pivot search, one pivot-row reduction and
one multiply-add per element right of j (about 500 instructions per thread and step at n = 1024 on
sm_90, against about 960 for the rolled loop). The multipliers go to global memory column by
column (no merge into the tile); the row order's sign comes from the pivot list at the end; the
panel also forms inv(L11) by a nilpotent Neumann product of nb x nb tl.dots. The Schur complement
X22 - L21 inv(L11) X12 is a tiled update (64 x 64 tiles, many programs, tl.dot in IEEE fp32)
written out of place into a ping-pong scratch with the remaining rows compacted in order; its
programs count themselves out on an acq_rel atomic counter and the last one factors the next panel
from the finished Schur complement, so a panel costs one launch (64 launches at n = 1024).
float64 beyond 64 x 64 keeps a single-program elimination in global memory. pivot=False skips the
search in the register path (the inputs given with it are diagonally dominant). Math in the
input's dtype (float32 or float64); the input is read through its strides and never modified.
Tuning knobs are the keyword arguments of det() (tune/linalg_tune.py times them); the defaults are
the H200's best (nb = 16: 1.10x eager's summed medians over the perf sweep, against 0.59x for
nb = 32 and 0.77x for nb = 32 rolled; session 22).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _det_small_kernel(a_ptr, out_ptr, n, sab, sar, sac, PIVOT: tl.constexpr, NP: tl.constexpr):
    # Whole matrix in registers, elimination without moving rows (as _lu_panel_kernel): step j
    # picks the pivot among the rows not yet used (one packed |value|/index max-reduction,
    # lowest index on ties; row j itself without pivoting), extracts that row (one reduction)
    # and eliminates column j from every other unused row. The row order's sign is counted from
    # the pivot list at the end.
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, NP)
    rows = r[:, None]
    cols = r[None, :]
    a = tl.load(a_ptr + b * sab + rows * sar + cols * sac, mask=(rows < n) & (cols < n), other=0.0)
    used = r >= n
    pv = tl.full([NP], -1, tl.int32)
    det = tl.sum(tl.where(r == 0, 1.0, 0.0), axis=0).to(a.dtype)
    for j in range(0, n):
        colj = tl.sum(tl.where(cols == j, a, 0.0), axis=1)
        if PIVOT:
            bits = tl.abs(colj).to(tl.float32).to(tl.int32, bitcast=True).to(tl.int64)
            key = tl.where(used, -1, (bits << 32) | (NP - 1 - r).to(tl.int64))
            kmax = tl.max(key, axis=0)
            p = (NP - 1 - (kmax & 0x7FFFFFFF)).to(tl.int32)
        else:
            p = j
        rowp = tl.sum(tl.where(rows == p, a, 0.0), axis=0)
        piv = tl.sum(tl.where(r == j, rowp, 0.0), axis=0)
        det = det * piv
        pv = tl.where(r == j, p, pv)
        used = used | (r == p)
        l = tl.where(used, 0.0, colj / tl.where(piv == 0.0, 1.0, piv))
        a = a - l[:, None] * tl.where(r > j, rowp, 0.0)[None, :]
    if PIVOT:
        pa = pv[:, None]
        pb = pv[None, :]
        ok = (pa >= 0) & (pb >= 0)
        inv = tl.sum(tl.sum(tl.where(ok & (r[:, None] < r[None, :]) & (pa > pb), 1, 0), axis=1),
                     axis=0)
        less = tl.sum(tl.sum(tl.where(ok & (pa < pb), 1, 0), axis=1), axis=0)
        cross = tl.sum(tl.where(pv >= 0, pv, 0), axis=0) - less
        det = tl.where(((inv + cross) % 2) == 1, -det, det)
    tl.store(out_ptr + b, det.to(out_ptr.dtype.element_ty))


@triton.jit
def _det_large_kernel(a_ptr, w_ptr, out_ptr, n, sab, sar, sac, PIVOT: tl.constexpr,
                      T: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    t1 = tl.arange(0, T)
    src = a_ptr + b * sab
    w = w_ptr + b * n * n
    for r0 in range(0, n, T):
        rr = r0 + t1
        for c0 in range(0, n, T):
            cc = c0 + t1
            m = (rr[:, None] < n) & (cc[None, :] < n)
            v = tl.load(src + rr[:, None].to(tl.int64) * sar + cc[None, :].to(tl.int64) * sac,
                        mask=m)
            tl.store(w + rr[:, None].to(tl.int64) * n + cc[None, :], v.to(w_ptr.dtype.element_ty),
                     mask=m)
    tl.debug_barrier()
    det = tl.sum(tl.where(t1 == 0, 1.0, 0.0), axis=0).to(w_ptr.dtype.element_ty)
    for k in range(0, n):
        if PIVOT:
            best = tl.full([T], -1.0, w_ptr.dtype.element_ty)
            besti = tl.full([T], 0, tl.int32)
            for r0 in range(k, n, T):
                rr = r0 + t1
                v = tl.abs(tl.load(w + rr.to(tl.int64) * n + k, mask=rr < n, other=-1.0))
                v = tl.where(rr < n, v, -1.0)
                better = v > best
                best = tl.where(better, v, best)
                besti = tl.where(better, rr, besti)
            mx = tl.max(best, axis=0)
            p = tl.min(tl.where(best == mx, besti, n), axis=0)
            if p != k:
                det = -det
                for c0 in range(0, n, T):
                    cc = c0 + t1
                    m = cc < n
                    rk = tl.load(w + k * n + cc, mask=m)
                    rp = tl.load(w + p.to(tl.int64) * n + cc, mask=m)
                    tl.store(w + k * n + cc, rp, mask=m)
                    tl.store(w + p.to(tl.int64) * n + cc, rk, mask=m)
                tl.debug_barrier()
        d = tl.load(w + k * (n + 1))
        det = det * d
        for r0 in range(k + 1, n, T):
            rr = r0 + t1
            rmask = rr < n
            l = tl.load(w + rr.to(tl.int64) * n + k, mask=rmask, other=0.0) / d
            for c0 in range(k + 1, n, T):
                cc = c0 + t1
                cmask = cc < n
                rowk = tl.load(w + k * n + cc, mask=cmask, other=0.0)
                ptrs = w + rr[:, None].to(tl.int64) * n + cc[None, :]
                m = rmask[:, None] & cmask[None, :]
                tl.store(ptrs, tl.load(ptrs, mask=m, other=0.0) - l[:, None] * rowk[None, :], mask=m)
        tl.debug_barrier()
    tl.store(out_ptr + b, det)


@triton.jit
def _finish_panel(pv, det, lb, pv_ptr, linv_ptr, res_ptr, b, FIRST: tl.constexpr,
                  NB: tl.constexpr, LOG2NB: tl.constexpr):
    # A factored panel's outputs: det *= sign * (its pivots' product, `det`), the pivot rows `pv`,
    # and inv(L11) from the pivot rows' multipliers (stored at lb by the panel).
    c = tl.arange(0, NB)
    cols = c[None, :]
    # The sign of the row order: inversions among the pivots, plus, for each pivot row, the
    # non-pivot rows with a smaller index (they come after it).
    pa = pv[:, None]
    pb = pv[None, :]
    ok = (pa >= 0) & (pb >= 0)
    inv = tl.sum(tl.sum(tl.where(ok & (c[:, None] < c[None, :]) & (pa > pb), 1, 0), axis=1), axis=0)
    less = tl.sum(tl.sum(tl.where(ok & (pa < pb), 1, 0), axis=1), axis=0)
    cross = tl.sum(tl.where(pv >= 0, pv, 0), axis=0) - less
    det = tl.where(((inv + cross) % 2) == 1, -det, det)
    if FIRST:
        tl.store(res_ptr + b, det.to(res_ptr.dtype.element_ty))
    else:
        tl.store(res_ptr + b, (tl.load(res_ptr + b) * det).to(res_ptr.dtype.element_ty))
    tl.store(pv_ptr + b * NB + c, pv)
    tl.debug_barrier()
    # inv(I + N), N the strictly lower multipliers of the pivot rows: (I - N)(I + N^2)(I + N^4)...
    # (N is nilpotent: N^NB = 0), as NB x NB products.
    neg = tl.load(lb + pa * NB + cols, mask=(pa >= 0) & (cols < c[:, None]), other=0.0)
    M = -neg
    S = tl.where(c[:, None] == cols, 1.0, 0.0) + M
    for _ in tl.static_range(LOG2NB - 1):
        M = tl.dot(M, M, input_precision="ieee")
        S = S + tl.dot(S, M, input_precision="ieee")
    tl.store(linv_ptr + b * NB * NB + c[:, None] * NB + cols, S)


@triton.jit
def _panel(x_ptr, sxb, sxr, sxc, l_ptr, pv_ptr, linv_ptr, res_ptr, b, n, k, m, nb,
           FIRST: tl.constexpr, NP: tl.constexpr, NB: tl.constexpr, LOG2NB: tl.constexpr):
    # Factors the [m x nb] panel X[k:, k:k+nb] of matrix b (m = n - k rows) with partial
    # pivoting, in registers, without moving rows: step j picks the largest |entry| of column j
    # among the rows not yet pivoted (lowest index on ties), stores the multipliers of the other
    # unpivoted rows as column j of L (l_ptr, [n, NB] per matrix, original row order; 0 for rows
    # already pivoted) and subtracts the rank-1 term with one multiply-add per element (the pivot
    # row is zeroed at columns <= j instead of selecting columns). Outputs also the pivot rows
    # (pv_ptr), inv(L11) (linv_ptr, unit lower, from the pivot rows' multipliers) and
    # det *= sign * prod(pivots) into res_ptr. The row order of the factorisation is [pivot rows
    # in pivot order, then the other rows ascending]; its sign is counted from the pivot list at
    # the end (no per-step swaps). Loads bypass L1 (.cg): the panel may have just been written by
    # other programs of the same launch.
    r = tl.arange(0, NP)
    c = tl.arange(0, NB)
    rows = r[:, None]
    cols = c[None, :]
    P = tl.load(x_ptr + b * sxb + (k + rows).to(tl.int64) * sxr + (k + cols) * sxc,
                mask=(rows < m) & (cols < nb), other=0.0, cache_modifier=".cg").to(tl.float32)
    used = r >= m
    pv = tl.full([NB], -1, tl.int32)
    det = tl.sum(tl.where(c == 0, 1.0, 0.0), axis=0)
    lb = l_ptr + b * n * NB
    for j in range(0, nb):
        colj = tl.sum(tl.where(cols == j, P, 0.0), axis=1)
        bits = tl.abs(colj).to(tl.int32, bitcast=True).to(tl.int64)
        key = tl.where(used, -1, (bits << 32) | (NP - 1 - r).to(tl.int64))
        kmax = tl.max(key, axis=0)
        p = (NP - 1 - (kmax & 0x7FFFFFFF)).to(tl.int32)
        rowp = tl.sum(tl.where(rows == p, P, 0.0), axis=0)
        piv = tl.sum(tl.where(c == j, rowp, 0.0), axis=0)
        det = det * piv
        pv = tl.where(c == j, p, pv)
        used = used | (r == p)
        l = tl.where(used, 0.0, colj / tl.where(piv == 0.0, 1.0, piv))
        tl.store(lb + r * NB + j, l, mask=r < m)
        P = P - l[:, None] * tl.where(c > j, rowp, 0.0)[None, :]
    _finish_panel(pv, det, lb, pv_ptr, linv_ptr, res_ptr, b, FIRST, NB, LOG2NB)


@triton.jit
def _load_cols(base, sxc, rmask, c0, nb, STRIDE: tl.constexpr, W: tl.constexpr):
    # Columns c0, c0 + STRIDE, ... (W of them) of the panel as [NP, 2, ..., 2] (joins put each
    # column in the same thread as the rest of its row: no column is spread across lanes).
    if W == 1:
        out = tl.load(base + c0 * sxc, mask=rmask & (c0 < nb), other=0.0,
                      cache_modifier=".cg").to(tl.float32)
    else:
        out = tl.join(_load_cols(base, sxc, rmask, c0, nb, 2 * STRIDE, W // 2),
                      _load_cols(base, sxc, rmask, c0 + STRIDE, nb, 2 * STRIDE, W // 2))
    return out


@triton.jit
def _panel_unrolled(x_ptr, sxb, sxr, sxc, l_ptr, pv_ptr, linv_ptr, res_ptr, b, n, k, m, nb,
                    FIRST: tl.constexpr, NP: tl.constexpr, NB: tl.constexpr,
                    LOG2NB: tl.constexpr):
    # As _panel, with the NB pivot steps unrolled and each row's NB values held by one thread
    # (built by joins of column loads): extracting column j and skipping the columns <= j are
    # compile-time selections, so a step costs the pivot-row reduction and one multiply-add per
    # element right of j.
    r = tl.arange(0, NP)
    c = tl.arange(0, NB)
    rows = r[:, None]
    cols = c[None, :]
    P = tl.reshape(_load_cols(x_ptr + b * sxb + (k + r).to(tl.int64) * sxr + k * sxc, sxc,
                              r < m, 0, nb, 1, NB), (NP, NB))
    used = r >= m
    pv = tl.full([NB], -1, tl.int32)
    det = tl.sum(tl.where(c == 0, 1.0, 0.0), axis=0)
    lb = l_ptr + b * n * NB
    for j in tl.static_range(NB):
        valid = j < nb
        colj = tl.sum(tl.where(cols == j, P, -0.0), axis=1)
        bits = tl.abs(colj).to(tl.int32, bitcast=True).to(tl.int64)
        key = tl.where(used, -1, (bits << 32) | (NP - 1 - r).to(tl.int64))
        kmax = tl.max(key, axis=0)
        p = tl.where(valid, (NP - 1 - (kmax & 0x7FFFFFFF)).to(tl.int32), -1)
        rowp = tl.sum(tl.where((rows == p) & (cols >= j), P, -0.0), axis=0)
        piv = tl.where(valid, tl.sum(tl.where(c == j, rowp, -0.0), axis=0), 1.0)
        det = det * piv
        pv = tl.where(c == j, p, pv)
        used = used | (r == p)
        l = tl.where(used | (j >= nb), 0.0, colj / tl.where(piv == 0.0, 1.0, piv))
        tl.store(lb + r * NB + j, l, mask=(r < m) & valid)
        P = tl.where(cols > j, P - l[:, None] * rowp[None, :], P)
    _finish_panel(pv, det, lb, pv_ptr, linv_ptr, res_ptr, b, FIRST, NB, LOG2NB)


@triton.jit
def _lu_panel_kernel(x_ptr, sxb, sxr, sxc, l_ptr, pv_ptr, linv_ptr, res_ptr, n, k, m, nb,
                     FIRST: tl.constexpr, NP: tl.constexpr, NB: tl.constexpr,
                     LOG2NB: tl.constexpr, UNROLL: tl.constexpr):
    if UNROLL:
        _panel_unrolled(x_ptr, sxb, sxr, sxc, l_ptr, pv_ptr, linv_ptr, res_ptr,
                        tl.program_id(0).to(tl.int64), n, k, m, nb, FIRST, NP, NB, LOG2NB)
    else:
        _panel(x_ptr, sxb, sxr, sxc, l_ptr, pv_ptr, linv_ptr, res_ptr,
               tl.program_id(0).to(tl.int64), n, k, m, nb, FIRST, NP, NB, LOG2NB)


@triton.jit
def _lu_update_kernel(x_ptr, sxb, sxr, sxc, y_ptr, l_ptr, pv_ptr, linv_ptr, res_ptr, cnt_ptr,
                      n, k, m, nb, nb2, NB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                      PREC: tl.constexpr, FUSE: tl.constexpr, NP2: tl.constexpr,
                      LOG2NB: tl.constexpr, UNROLL: tl.constexpr):
    # Schur complement of the panel, out of place: for every non-pivot row r of the panel (local
    # index, original order) and column c >= k + nb, Y[k + nb + dest(r), c] = X[k + r, c] -
    # L21[r] @ U12[:, c], with U12 = inv(L11) @ X[k + pivot rows, c] and dest(r) = r minus the
    # pivot rows above r (the trailing rows keep their order). With FUSE, the program that
    # finishes last (an acq_rel counter per matrix) then factors the next panel of Y itself,
    # instead of a separate launch.
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    cc = k + nb + tl.program_id(1) * BN + tl.arange(0, BN)
    cmask = cc < n
    jj = tl.arange(0, NB)
    pv = tl.load(pv_ptr + b * NB + jj)
    xb = x_ptr + b * sxb
    a12 = tl.load(xb + (k + pv)[:, None].to(tl.int64) * sxr + cc[None, :] * sxc,
                  mask=(pv >= 0)[:, None] & cmask[None, :], other=0.0).to(tl.float32)
    linv = tl.load(linv_ptr + b * NB * NB + jj[:, None] * NB + jj[None, :])
    u12 = tl.dot(linv, a12, input_precision=PREC)
    isp = tl.sum(tl.where(pv[None, :] == r[:, None], 1, 0), axis=1) > 0
    before = tl.sum(tl.where((pv[None, :] >= 0) & (pv[None, :] < r[:, None]), 1, 0), axis=1)
    live = (r < m) & (isp == 0)
    lt = tl.load(l_ptr + b * n * NB + r[:, None] * NB + jj[None, :],
                 mask=live[:, None] & (jj < nb)[None, :], other=0.0)
    mask = live[:, None] & cmask[None, :]
    x = tl.load(xb + (k + r)[:, None].to(tl.int64) * sxr + cc[None, :] * sxc, mask=mask,
                other=0.0).to(tl.float32)
    y = x - tl.dot(lt, u12, input_precision=PREC)
    tl.store(y_ptr + b * n * n + (k + nb + r - before)[:, None].to(tl.int64) * n + cc[None, :],
             y, mask=mask)
    if FUSE:
        tl.debug_barrier()
        total = tl.num_programs(0) * tl.num_programs(1)
        done = tl.atomic_add(cnt_ptr + b, 1, sem="acq_rel", scope="gpu")
        if done == total - 1:
            tl.store(cnt_ptr + b, 0)
            if UNROLL:
                _panel_unrolled(y_ptr, n * n, n, 1, l_ptr, pv_ptr, linv_ptr, res_ptr, b, n,
                                k + nb, m - nb, nb2, False, NP2, NB, LOG2NB)
            else:
                _panel(y_ptr, n * n, n, 1, l_ptr, pv_ptr, linv_ptr, res_ptr, b, n, k + nb,
                       m - nb, nb2, False, NP2, NB, LOG2NB)


_counters = {}


def _det_blocked(a, res, nb=32, bm=64, bn=64, panel_warps=None, update_warps=4, prec="ieee",
                 fuse=True, unroll=True):
    # Blocked right-looking LU for float32: per panel of nb columns one single-program panel
    # factorisation and one tiled Schur-complement update (tl.dot) over the whole trailing
    # matrix, ping-ponging between two scratch copies; with fuse, the update's last program
    # factors the next panel (one launch per panel).
    nbatch, n = a.shape[0], a.shape[-1]
    dev = a.device
    NB = nb
    LOG2NB = NB.bit_length() - 1
    work = torch.empty((2, nbatch, n, n), dtype=torch.float32, device=dev)
    lbuf = torch.empty((nbatch, n, NB), dtype=torch.float32, device=dev)
    pvb = torch.empty((nbatch, NB), dtype=torch.int32, device=dev)
    linv = torch.empty((nbatch, NB, NB), dtype=torch.float32, device=dev)
    cnt = None
    if fuse:
        key = (str(dev), nbatch)
        cnt = _counters.get(key)
        if cnt is None:
            cnt = _counters[key] = torch.zeros(nbatch, dtype=torch.int32, device=dev)

    def pwarps(NP):
        # Unrolled: a row's NB values in one thread, fewer warps issue fewer shuffles per step.
        return panel_warps or max(4, min(16, NP * NB // (4096 if unroll else 2048)))

    x, sx = a, (a.stride(0), a.stride(1), a.stride(2))
    NP = max(16, triton.next_power_of_2(n))
    _lu_panel_kernel[(nbatch,)](x, *sx, lbuf, pvb, linv, res, n, 0, n, min(NB, n), FIRST=True,
                                NP=NP, NB=NB, LOG2NB=LOG2NB, UNROLL=unroll, num_warps=pwarps(NP))
    for i, k in enumerate(range(0, n, NB)):
        m = n - k
        nbk = min(NB, m)
        if k + nbk >= n:
            break
        y = work[i % 2]
        m2 = m - nbk
        NP2 = max(16, triton.next_power_of_2(m2))
        grid = (triton.cdiv(m, bm), triton.cdiv(n - k - nbk, bn), nbatch)
        if fuse:
            _lu_update_kernel[grid](x, *sx, y, lbuf, pvb, linv, res, cnt, n, k, m, nbk,
                                    min(NB, m2), NB=NB, BM=bm, BN=bn, PREC=prec, FUSE=True,
                                    NP2=NP2, LOG2NB=LOG2NB, UNROLL=unroll,
                                    num_warps=max(update_warps, pwarps(NP2)))
        else:
            _lu_update_kernel[grid](x, *sx, y, lbuf, pvb, linv, res, res, n, k, m, nbk, 0,
                                    NB=NB, BM=bm, BN=bn, PREC=prec, FUSE=False, NP2=16,
                                    LOG2NB=LOG2NB, UNROLL=unroll, num_warps=update_warps)
            _lu_panel_kernel[(nbatch,)](y, n * n, n, 1, lbuf, pvb, linv, res, n, k + nbk, m2,
                                        min(NB, m2), FIRST=False, NP=NP2, NB=NB, LOG2NB=LOG2NB,
                                        UNROLL=unroll, num_warps=pwarps(NP2))
        x, sx = y, (n * n, n, 1)


def det(A, *, pivot=True, out=None, small_max=64, nb=16, bm=64, bn=64, panel_warps=None,
        update_warps=4, prec="ieee", fuse=True, unroll=True):
    """determinant_lu with its tuning knobs: small_max (largest n factored whole in registers),
    nb (panel width: 16, 32 or 64), bm x bn update tiles, panel_warps (None: by panel size),
    update_warps, prec (tl.dot precision of the updates: "ieee" or "tf32x3"), fuse (the update's
    last program factors the next panel), unroll (panel steps unrolled, rows in one thread)."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"determinant_lu: expected a square matrix or a batch of them, got {list(A.shape)}")
    n = A.shape[-1]
    batch = A.shape[:-2]
    dtype = A.dtype if A.dtype in (torch.float32, torch.float64) else torch.float32
    res = torch.empty(batch, dtype=dtype, device=A.device)
    nbat = res.numel()
    if nbat:
        if n == 0:
            res.fill_(1.0)
        else:
            a = A.reshape(-1, n, n)
            if n <= small_max or (dtype != torch.float32 and n <= 64):
                NP = max(2, triton.next_power_of_2(n))
                _det_small_kernel[(nbat,)](a, res, n, a.stride(0), a.stride(1), a.stride(2),
                                           PIVOT=bool(pivot), NP=NP,
                                           num_warps=4 if NP <= 32 else (8 if NP <= 64 else 16))
            elif dtype == torch.float32:
                _det_blocked(a, res, nb=nb, bm=bm, bn=bn, panel_warps=panel_warps,
                             update_warps=update_warps, prec=prec, fuse=fuse, unroll=unroll)
            else:
                work = torch.empty((nbat, n, n), dtype=dtype, device=A.device)
                _det_large_kernel[(nbat,)](a, work, res, n, a.stride(0), a.stride(1), a.stride(2),
                                           PIVOT=bool(pivot), T=128, num_warps=16)
    if out is not None:
        return out.copy_(res)
    return res


def determinant_lu(A, *, pivot=True, out=None):
    return det(A, pivot=pivot, out=out)
