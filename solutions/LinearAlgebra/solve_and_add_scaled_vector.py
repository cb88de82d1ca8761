"""LinearAlgebra/solve_and_add_scaled_vector.py: upper-triangular solve A x = b plus alpha * y, in one
launch (eager: cuBLAS trsm, then a multiply and an add: three launches and two extra passes).

Design: one program per chunk of up to 16 right-hand-side columns (the perf sweep's single column
is one program: a triangular solve is a dependency chain, and for n <= 1024 the chain, not
bandwidth, sets the time). The back substitution is run as a forward substitution on the
index-reversed system (i -> n - 1 - i: the views start at the last row and the kernel walks
negative strides), so one blocked solver serves: for each block of BS = 32 rows, the already
solved rows are subtracted as [32 x BT] x [BT x KB] tile products (BT = 64 for one column; A read
once, only its upper triangle, through its strides), then the 32 x 32 diagonal block is solved row
by row in registers. A final sweep adds alpha * y (y [n, 1] broadcast across the columns).
Math in the inputs' dtype (float32, or float64 for the float64 cases).
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
def _solve_add_kernel(a_ptr, sar, sac, b_ptr, sbr, sbc, y_ptr, syr, x_ptr, sxr, n, k, alpha,
                      KB: tl.constexpr, BS: tl.constexpr, BT: tl.constexpr):
    cols = tl.program_id(0) * KB + tl.arange(0, KB)
    cmask = cols < k
    _forward_solve(a_ptr, sar, sac, b_ptr, sbr, sbc, x_ptr, sxr, 1, n, cols, cmask, BS, BT)
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
        BT = max(16, 2048 // (32 * KB))
        # Index-reversed views: row n - 1 first, negative strides.
        _solve_add_kernel[(triton.cdiv(k, KB),)](
            A[n - 1:, n - 1:], -A.stride(0), -A.stride(1), b2[n - 1:], -b2.stride(0), b2.stride(1),
            y2[n - 1:], -y2.stride(0), x[n - 1:], -x.stride(0), n, k, float(alpha), KB=KB, BS=32,
            BT=BT, num_warps=4)
    return x if b.dim() == 2 else x.squeeze(1)
