"""LinearAlgebra/cholesky_solve.py: A X = B from A's Cholesky factor, both triangular solves in one
launch (per batch matrix and chunk of right-hand sides).

Design: one program per (batch matrix, chunk of up to 16 right-hand-side columns); the two solves
run back to back in the same program, the intermediate Z staying in the output buffer (L2-hot).
One blocked forward solver serves all four triangular systems through strides: L Z = B is lower;
L^T X = Z is L read with swapped strides and index-reversed (views start at the last row and the
kernel walks negative strides), which makes it lower again; upper=True (A = U^T U) is the mirror
image. Per block of BS = 32 rows, the already solved rows are subtracted as [32 x BT] x [BT x KB]
tile products (only the named triangle of the factor is read, through its strides: the
non-contiguous factors and right-hand sides need no copy), then the 32 x 32 diagonal block is
solved row by row in registers. Math in the inputs' dtype (float32 or float64). Batch dims of B
and L broadcast. Expected to beat eager (two cuBLAS trsm calls behind torch's batching logic) on
small and mid-size factors, where one launch and the dependency chain set the time; the largest
perf factors (n >= 4096, a 64 MiB+ factor) are limited by one program streaming the factor at a
single SM's bandwidth and will lose to cuBLAS (a multi-program look-back solver is the next step).
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
        KB = min(16, triton.next_power_of_2(k))
        BT = max(16, 2048 // (32 * KB))
        _cholesky_solve_kernel[(triton.cdiv(k, KB), nb)](
            Lb, Lb.stride(0), Lb.stride(1), Lb.stride(2), Bb, Bb.stride(0), Bb.stride(1),
            Bb.stride(2), x, n, k, UPPER=bool(upper), KB=KB, BS=32, BT=BT, num_warps=4)
    if out is not None:
        out.resize_(x.shape)
        return out.copy_(x)
    return x
