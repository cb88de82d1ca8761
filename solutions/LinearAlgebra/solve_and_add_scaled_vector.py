"""LinearAlgebra/solve_and_add_scaled_vector.py: upper-triangular solve A x = b plus alpha * y, in two
launches (eager: cuBLAS trsm, then a multiply and an add: three launches and two extra passes).

Design: one program per chunk of up to 16 right-hand-side columns (the perf sweep's single column
is one program: a triangular solve is a dependency chain, and for n <= 1024 the chain, not
bandwidth, sets the time). The back substitution is run as a forward substitution on the
index-reversed system (i -> n - 1 - i: the views start at the last row and the kernel walks
negative strides). A first launch inverts every 32 x 32 diagonal block (one program per block, in
parallel: row-by-row substitution against the identity, in registers; the matrices are
well-conditioned, |diagonal| >= n), so the chain itself has no row-by-row steps: for each block
of BS = 32 rows, the already solved rows are subtracted as [32 x BT] x [BT x KB] tile products
(BT = 256 for one column; A read once, only its upper triangle, through its strides), then the
block's solution is its diagonal inverse times the remainder, one small product. A final sweep
adds alpha * y (y [n, 1] broadcast across the columns).
Math in the inputs' dtype (float32, or float64 for the float64 cases).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _diag_inv_kernel(t_ptr, str_, stc, w_ptr, n, BS: tl.constexpr):
    # Inverts the BS x BS lower-triangular diagonal block `pid` of T (rows past n get a unit
    # diagonal) by forward substitution against the identity, row by row in registers, and
    # stores it at w_ptr + pid * BS * BS (row-major). The blocks are independent: one program
    # each, all in parallel, so this sequential part is off the solve's dependency chain.
    pid = tl.program_id(0)
    r0 = pid * BS
    ridx = tl.arange(0, BS)
    rows = r0 + ridx
    rmask = rows < n
    dcols = r0 + ridx
    d = tl.load(t_ptr + rows[:, None] * str_ + dcols[None, :] * stc,
                mask=rmask[:, None] & (dcols[None, :] <= rows[:, None]) & (dcols[None, :] < n),
                other=0.0).to(w_ptr.dtype.element_ty)
    eye = tl.where(ridx[:, None] == ridx[None, :], 1.0, 0.0).to(w_ptr.dtype.element_ty)
    xb = tl.zeros_like(eye)
    for i in range(0, BS):
        sel = ridx == i
        li = tl.sum(tl.where(sel[:, None], d, 0.0), axis=0)
        s = tl.sum(li[:, None] * xb, axis=0)
        bi = tl.sum(tl.where(sel[:, None], eye, 0.0), axis=0)
        dii = tl.sum(tl.where(sel, li, 0.0), axis=0)
        dii = tl.where(r0 + i < n, dii, 1.0)
        xb = tl.where(sel[:, None], ((bi - s) / dii)[None, :], xb)
    tl.store(w_ptr + pid * BS * BS + ridx[:, None] * BS + ridx[None, :], xb)


@triton.jit
def _forward_solve(t_ptr, str_, stc, w_ptr, b_ptr, sbr, sbc, x_ptr, sxr, sxc, n, cols, cmask,
                   BS: tl.constexpr, BT: tl.constexpr):
    # Solves T X = B for lower-triangular T (n x n, entries T[i, j] at t_ptr + i * str_ + j * stc,
    # only j <= i read) and the right-hand-side columns `cols`; X goes to x_ptr. Upper systems
    # arrive here as lower ones through negated strides. Blocked: for each block of BS rows, a
    # [BS x BT] x [BT x KB] product subtracts the solved rows above, then the block's X is the
    # precomputed inverse of its diagonal block (w_ptr, _diag_inv_kernel) times the remainder:
    # one small product per block instead of BS dependent row steps.
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
        dinv = tl.load(w_ptr + (r0 // BS) * BS * BS + ridx[:, None] * BS + ridx[None, :])
        xb = tl.sum(dinv[:, :, None] * acc[None, :, :], axis=1)
        tl.store(x_ptr + rows[:, None] * sxr + cols[None, :] * sxc, xb,
                 mask=rmask[:, None] & cmask[None, :])
        tl.debug_barrier()


@triton.jit
def _solve_add_kernel(a_ptr, sar, sac, w_ptr, b_ptr, sbr, sbc, y_ptr, syr, x_ptr, sxr, n, k,
                      alpha, KB: tl.constexpr, BS: tl.constexpr, BT: tl.constexpr):
    cols = tl.program_id(0) * KB + tl.arange(0, KB)
    cmask = cols < k
    _forward_solve(a_ptr, sar, sac, w_ptr, b_ptr, sbr, sbc, x_ptr, sxr, 1, n, cols, cmask, BS,
                   BT)
    ridx = tl.arange(0, BS)
    for r0 in range(0, n, BS):
        rows = r0 + ridx
        rmask = rows < n
        mask = rmask[:, None] & cmask[None, :]
        ptrs = x_ptr + rows[:, None] * sxr + cols[None, :]
        y = tl.load(y_ptr + rows * syr, mask=rmask, other=0.0).to(x_ptr.dtype.element_ty)
        tl.store(ptrs, tl.load(ptrs, mask=mask, other=0.0) + alpha * y[:, None], mask=mask)


def solve_and_add_scaled_vector(A, b, y, alpha):
    n = A.shape[-1]
    if A.dim() != 2 or A.shape[0] != n or b.shape[0] != n:
        raise RuntimeError(f"solve_and_add_scaled_vector: A {list(A.shape)} must be square and match b {list(b.shape)}")
    b2 = b if b.dim() == 2 else b.unsqueeze(1)
    k = b2.shape[1]
    dtype = torch.result_type(A, b)
    x = torch.empty((n, k), dtype=dtype, device=A.device)
    if n and k:
        y2 = y.reshape(n, -1)
        if y2.shape[1] != 1:
            raise RuntimeError("solve_and_add_scaled_vector: y must be [n, 1]")
        KB = min(16, triton.next_power_of_2(k))
        BS = 32
        # [BS x BT] off-diagonal tiles of 8K elements for one column (fewer dependent round trips
        # to memory along the chain), 2K for 16.
        BT = max(16, (8192 if KB == 1 else 2048) // (BS * KB))
        nblk = triton.cdiv(n, BS)
        # Index-reversed views: row n - 1 first, negative strides.
        Ar = A[n - 1:, n - 1:]
        work = torch.empty((nblk, BS, BS), dtype=dtype, device=A.device)
        _diag_inv_kernel[(nblk,)](Ar, -A.stride(0), -A.stride(1), work, n, BS=BS, num_warps=4)
        _solve_add_kernel[(triton.cdiv(k, KB),)](
            Ar, -A.stride(0), -A.stride(1), work, b2[n - 1:], -b2.stride(0), b2.stride(1),
            y2[n - 1:], -y2.stride(0), x[n - 1:], -x.stride(0), n, k, float(alpha), KB=KB, BS=BS,
            BT=BT, num_warps=4)
    return x if b.dim() == 2 else x.squeeze(1)
