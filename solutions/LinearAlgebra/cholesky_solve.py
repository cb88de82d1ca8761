"""LinearAlgebra/cholesky_solve.py: A X = B from A's Cholesky factor: a forward and a back
substitution, with the intermediate Z never leaving the output buffers.

Two paths, both all-Triton. One blocked forward solver serves all four triangular systems through
strides: L Z = B is lower; L^T X = Z is L read with swapped strides and index-reversed (views start
at the last row and the kernels walk negative strides), which makes it lower again; upper=True
(A = U^T U) is the mirror image. The factor is read through its strides (only its named
triangle), so the non-contiguous factors and right-hand sides need no copy.
- Small and mid-size systems (the cases; any float64 system; float32 below n = 2048): one launch,
  one program per (batch matrix, chunk of up to 16 right-hand sides), both solves back to back in
  that program. Per block of 32 rows the solved rows are subtracted as [32 x BT] x [BT x KB] tile
  products, then the 32 x 32 diagonal block is solved row by row in registers. For these sizes the
  dependency chain and launch count set the time, and one launch with no host synchronisation
  beats eager's trsm calls.
- Large float32 systems (the perf sweep's n = 2048 .. 32768, a factor of up to 4 GiB): a single
  program would stream the factor at one SM's bandwidth, so the work is spread: every 64 x 64
  diagonal block is inverted at once (one program each, forward substitution on the identity),
  then one launch per block row forms x_blk = inv_blk @ rhs_blk (tl.dot, input_precision="ieee")
  and updates all rows below with [64 x 64] x [64 x 16] ieee tl.dots, one program per 64 rows: the
  factor is read once per solve at full bandwidth, in n / 32 launches for the two solves and no
  sequential per-row chain. Float32 throughout (the contract is float32-exact; TF32 fails it).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _forward_solve(t_ptr, str_, stc, b_ptr, sbr, sbc, x_ptr, sxr, sxc, n, cols, cmask,
                   BS: tl.constexpr, BT: tl.constexpr):
    # Solves T X = B for lower-triangular T (n x n, entries T[i, j] at t_ptr + i * str_ + j * stc,
    # only j <= i read) and the right-hand-side columns `cols`; X goes to x_ptr. Upper systems and
    # transposed factors arrive here as lower ones through swapped or negated strides. Blocked:
    # for each block of BS rows, a [BS x BT] x [BT x KB] product subtracts the solved rows above,
    # then the BS x BS diagonal block is solved row by row in registers.
    ridx = tl.arange(0, BS)
    tidx = tl.arange(0, BT)
    for r0 in range(0, n, BS):
        rows = r0 + ridx
        rmask = rows < n
        acc = tl.load(b_ptr + rows[:, None] * sbr + cols[None, :] * sbc,
                      mask=rmask[:, None] & cmask[None, :], other=0.0).to(x_ptr.dtype.element_ty)
        for j0 in range(0, r0, BT):
            js = j0 + tidx
            jmask = js < r0
            t = tl.load(t_ptr + rows[:, None] * str_ + js[None, :] * stc,
                        mask=rmask[:, None] & jmask[None, :], other=0.0)
            xs = tl.load(x_ptr + js[:, None] * sxr + cols[None, :] * sxc,
                         mask=jmask[:, None] & cmask[None, :], other=0.0)
            acc -= tl.sum(t.to(acc.dtype)[:, :, None] * xs[None, :, :], axis=1)
        dcols = r0 + ridx
        d = tl.load(t_ptr + rows[:, None] * str_ + dcols[None, :] * stc,
                    mask=rmask[:, None] & (dcols[None, :] <= rows[:, None]), other=0.0).to(acc.dtype)
        xb = tl.zeros_like(acc)
        for i in range(0, BS):
            sel = ridx == i
            li = tl.sum(tl.where(sel[:, None], d, 0.0), axis=0)
            s = tl.sum(li[:, None] * xb, axis=0)
            bi = tl.sum(tl.where(sel[:, None], acc, 0.0), axis=0)
            dii = tl.sum(tl.where(sel, li, 0.0), axis=0)
            dii = tl.where(r0 + i < n, dii, 1.0)
            xb = tl.where(sel[:, None], ((bi - s) / dii)[None, :], xb)
        tl.store(x_ptr + rows[:, None] * sxr + cols[None, :] * sxc, xb,
                 mask=rmask[:, None] & cmask[None, :])
        tl.debug_barrier()


@triton.jit
def _cholesky_solve_kernel(l_ptr, slb, slr, slc, b_ptr, sbb, sbr, sbc, x_ptr, n, k,
                           UPPER: tl.constexpr, KB: tl.constexpr, BS: tl.constexpr,
                           BT: tl.constexpr):
    bat = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * KB + tl.arange(0, KB)
    cmask = cols < k
    l_base = l_ptr + bat * slb
    x_base = x_ptr + bat * n * k
    last = n - 1
    if UPPER:
        # U^T Z = B (lower: U with swapped strides), then U X = Z (upper: index-reversed).
        _forward_solve(l_base, slc, slr, b_ptr + bat * sbb, sbr, sbc, x_base, k, 1, n, cols, cmask,
                       BS, BT)
        _forward_solve(l_base + last * (slr + slc), -slr, -slc, x_base + last * k, -k, 1,
                       x_base + last * k, -k, 1, n, cols, cmask, BS, BT)
    else:
        # L Z = B, then L^T X = Z (L^T upper: swapped strides, index-reversed).
        _forward_solve(l_base, slr, slc, b_ptr + bat * sbb, sbr, sbc, x_base, k, 1, n, cols, cmask,
                       BS, BT)
        _forward_solve(l_base + last * (slr + slc), -slc, -slr, x_base + last * k, -k, 1,
                       x_base + last * k, -k, 1, n, cols, cmask, BS, BT)


@triton.jit
def _copy_rhs_kernel(b_ptr, sbb, sbr, sbc, x_ptr, n, k, KB: tl.constexpr, BR: tl.constexpr):
    bat = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, KB)
    for c0 in range(0, k, KB):
        c = c0 + cols
        m = (rows[:, None] < n) & (c[None, :] < k)
        v = tl.load(b_ptr + bat * sbb + rows.to(tl.int64)[:, None] * sbr + c[None, :] * sbc, mask=m)
        tl.store(x_ptr + bat * n * k + rows.to(tl.int64)[:, None] * k + c[None, :], v, mask=m)


@triton.jit
def _invert_diag_kernel(t_ptr, str_, stc, tbs, inv_ptr, n, BS: tl.constexpr):
    # inv[blk] = T[blk, blk]^-1 for the lower-triangular diagonal block `blk` (rows past n get
    # an identity row): forward substitution on the identity, one program per block, all blocks
    # at once.
    blk = tl.program_id(0)
    bat = tl.program_id(1).to(tl.int64)
    r0 = blk * BS
    idx = tl.arange(0, BS)
    tb = t_ptr + bat * tbs
    inv = tl.zeros([BS, BS], tl.float32)
    for i in range(0, BS):
        row = r0 + i
        li = tl.load(tb + row.to(tl.int64) * str_ + (r0 + idx).to(tl.int64) * stc,
                     mask=(row < n) & (idx <= i) & (r0 + idx < n), other=0.0)
        dii = tl.sum(tl.where(idx == i, li, 0.0), axis=0)
        dii = tl.where(row < n, dii, 1.0)
        s = tl.sum(tl.where((idx < i)[:, None], li[:, None] * inv, 0.0), axis=0)
        e = tl.where(idx == i, 1.0, 0.0)
        inv = tl.where((idx == i)[:, None], ((e - s) / dii)[None, :], inv)
    tl.store(inv_ptr + (bat * tl.num_programs(0) + blk) * BS * BS + idx[:, None] * BS + idx[None, :], inv)


@triton.jit
def _block_step_kernel(t_ptr, str_, stc, tbs, inv_ptr, nblk, x_ptr, sxr, xbs, y_ptr, syr, ybs,
                       n, k, blk, KB: tl.constexpr, BS: tl.constexpr, BR: tl.constexpr):
    # x[blk] = inv[blk] @ rhs[blk] (every program forms it; program 0 stores it into y), then
    # rhs[rows below] -= T[rows, blk] @ x[blk] for this program's BR rows.
    pid = tl.program_id(0)
    bat = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(2) * KB + tl.arange(0, KB)
    cmask = cols < k
    r0 = blk * BS
    idx = tl.arange(0, BS)
    brow = r0 + idx
    xb_ptr = x_ptr + bat * xbs
    rhs = tl.load(xb_ptr + brow.to(tl.int64)[:, None] * sxr + cols[None, :],
                  mask=(brow[:, None] < n) & cmask[None, :], other=0.0)
    inv = tl.load(inv_ptr + (bat * nblk + blk) * BS * BS + idx[:, None] * BS + idx[None, :])
    xs = tl.dot(inv, rhs, input_precision="ieee")
    if pid == 0:
        tl.store(y_ptr + bat * ybs + brow.to(tl.int64)[:, None] * syr + cols[None, :], xs,
                 mask=(brow[:, None] < n) & cmask[None, :])
    rows = r0 + BS + pid * BR + tl.arange(0, BR)
    rmask = rows < n
    t = tl.load(t_ptr + bat * tbs + rows.to(tl.int64)[:, None] * str_ + brow.to(tl.int64)[None, :] * stc,
                mask=rmask[:, None] & (brow[None, :] < n), other=0.0)
    ptrs = xb_ptr + rows.to(tl.int64)[:, None] * sxr + cols[None, :]
    m = rmask[:, None] & cmask[None, :]
    acc = tl.load(ptrs, mask=m, other=0.0)
    acc -= tl.dot(t, xs, input_precision="ieee")
    tl.store(ptrs, acc, mask=m)


_BIG_N = 2048  # float32 systems at least this large use the multi-program blocked solver
_BS = 64


def _blocked_solve(t, str_, stc, tbs, rhs, srr, rbs, sol, ssr, sbs, n, k, nb):
    """Lower-triangular solve T X = RHS, many programs per step: diagonal blocks inverted in
    parallel, then one launch per block row (x_blk = inv @ rhs_blk, rows below updated by a
    [64 x 64] x [64 x 16] ieee tl.dot each). `rhs` is overwritten; X goes to `sol`."""
    nblk = triton.cdiv(n, _BS)
    inv = torch.empty((nb, nblk, _BS, _BS), dtype=torch.float32, device=rhs.device)
    _invert_diag_kernel[(nblk, nb)](t, str_, stc, tbs, inv, n, BS=_BS, num_warps=4)
    KB = 16
    for blk in range(nblk):
        below = n - (blk + 1) * _BS
        grid = (max(1, triton.cdiv(below, 64)), nb, triton.cdiv(k, KB))
        _block_step_kernel[grid](t, str_, stc, tbs, inv, nblk, rhs, srr, rbs, sol, ssr, sbs, n, k,
                                 blk, KB=KB, BS=_BS, BR=64, num_warps=4)


def cholesky_solve(B, L, upper=False, out=None):
    n = L.shape[-1]
    if L.dim() < 2 or L.shape[-2] != n or B.dim() < 2 or B.shape[-2] != n:
        raise RuntimeError(f"cholesky_solve: L {list(L.shape)} must be square and match B {list(B.shape)}")
    k = B.shape[-1]
    batch = torch.broadcast_shapes(B.shape[:-2], L.shape[:-2])
    dtype = torch.result_type(B, L)
    x = torch.empty(tuple(batch) + (n, k), dtype=dtype, device=B.device)
    nb = x.numel() // max(n * k, 1)
    if n and k and nb:
        Lb = L.expand(tuple(batch) + (n, n))
        Bb = B.expand(tuple(batch) + (n, k))
        if len(batch) != 1:
            Lb = Lb.reshape(-1, n, n)
            Bb = Bb.reshape(-1, n, k)
        if dtype == torch.float32 and Lb.dtype == torch.float32 and n >= _BIG_N:
            work = torch.empty_like(x)
            wv = work.view(nb, n, k)
            xv = x.view(nb, n, k)
            _copy_rhs_kernel[(triton.cdiv(n, 64), nb)](Bb, Bb.stride(0), Bb.stride(1), Bb.stride(2),
                                                        wv, n, k, KB=16, BR=64, num_warps=4)
            slb, slr, slc = Lb.stride(0), Lb.stride(1), Lb.stride(2)
            first = (slr, slc) if not upper else (slc, slr)      # L, or U^T: lower
            second = (-slc, -slr) if not upper else (-slr, -slc)  # L^T or U, index-reversed
            _blocked_solve(Lb, *first, slb, wv, k, n * k, xv, k, n * k, n, k, nb)
            _blocked_solve(Lb[:, n - 1:, n - 1:], *second, slb, xv[:, n - 1:], -k, n * k,
                           wv[:, n - 1:], -k, n * k, n, k, nb)
            x = work
        else:
            KB = min(16, triton.next_power_of_2(k))
            BT = max(16, 2048 // (32 * KB))
            _cholesky_solve_kernel[(triton.cdiv(k, KB), nb)](
                Lb, Lb.stride(0), Lb.stride(1), Lb.stride(2), Bb, Bb.stride(0), Bb.stride(1),
                Bb.stride(2), x, n, k, UPPER=bool(upper), KB=KB, BS=32, BT=BT, num_warps=4)
    if out is not None:
        out.resize_(x.shape)
        return out.copy_(x)
    return x
