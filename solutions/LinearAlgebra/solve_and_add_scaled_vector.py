"""LinearAlgebra/solve_and_add_scaled_vector.py: upper-triangular solve A x = b plus alpha * y, in two
launches (eager: cuBLAS trsm, then a multiply and an add: three launches and two extra passes).

Design: the back substitution is run as a forward substitution on the index-reversed system
(i -> n - 1 - i: the views start at the last row and the kernels walk negative strides), blocked
by BS = 32 rows. A first launch, fully parallel (one program per row block and 128-column chunk),
inverts each 32 x 32 diagonal block T_ii = D (I + N) as inv(I + N) D^-1 with the nilpotent
product (I - N)(I + N^2)(I + N^4)(I + N^8)(I + N^16) (4 x 2 small tl.dots instead of 32 dependent
row steps; |N| is small: the matrices have |diagonal| >= n) and writes the block-preconditioned
matrix C_ij = inv(T_ii) T_ij and right-hand side inv(T_ii) b_i: this reads A once from HBM with
all SMs and leaves C in L2. The second launch is the dependency chain, one program per chunk of up
to 16 right-hand-side columns (the perf sweep's single column is one program): for each row block,
x_i = inv(T_ii) b_i - sum_j C_ij x_j as ONE [32 x n] tile product (C and the solved x from L2, no
diagonal solve left on the chain), then a final sweep adds alpha * y (y [n, 1] broadcast across
the columns). Math in the inputs' dtype (float32, or float64 for the float64 cases; float64
products are broadcast-multiply-sums instead of tl.dot).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mm(a, b, DOT: tl.constexpr):
    if DOT:
        return tl.dot(a, b, input_precision="ieee")
    return tl.sum(a[:, :, None] * b[None, :, :], axis=1)


@triton.jit
def _precond_kernel(t_ptr, str_, stc, b_ptr, sbr, sbc, c_ptr, bp_ptr, n, k,
                    BS: tl.constexpr, BC: tl.constexpr, KB: tl.constexpr,
                    LOG2BS: tl.constexpr, DOT: tl.constexpr):
    # Program (i, cj): inverts diagonal block i of the lower-triangular T (entries T[r, c] at
    # t_ptr + r * str_ + c * stc, only c <= r read), then writes C[rows_i, chunk cj] =
    # inv(T_ii) T[rows_i, chunk cj] for the columns left of the block, and (cj == 0) the
    # preconditioned right-hand side inv(T_ii) b_i. C is [n, n] row-major, bp [n, k].
    i = tl.program_id(0)
    cj = tl.program_id(1)
    r0 = i * BS
    if cj * BC < r0 or cj == 0:
        dt = c_ptr.dtype.element_ty
        ridx = tl.arange(0, BS)
        rows = r0 + ridx
        rmask = rows < n
        rr = ridx[:, None]
        cc = ridx[None, :]
        d = tl.load(t_ptr + rows[:, None] * str_ + (r0 + cc) * stc,
                    mask=rmask[:, None] & (cc <= rr) & (r0 + cc < n), other=0.0).to(dt)
        diag = tl.sum(tl.where(rr == cc, d, 0.0), axis=1)
        diag = tl.where(rmask, diag, 1.0)
        M = tl.where(cc < rr, -d / diag[:, None], 0.0)
        S = tl.where(rr == cc, 1.0, 0.0).to(dt) + M
        for _ in tl.static_range(LOG2BS - 1):
            M = _mm(M, M, DOT)
            S = S + _mm(S, M, DOT)
        dcol = tl.sum(tl.where(rr == cc, diag[:, None], 0.0), axis=0)
        dinv = S / dcol[None, :]
        if cj * BC < r0:
            cols = cj * BC + tl.arange(0, BC)
            cm = rmask[:, None] & (cols < r0)[None, :]
            a = tl.load(t_ptr + rows[:, None] * str_ + cols[None, :] * stc, mask=cm,
                        other=0.0).to(dt)
            tl.store(c_ptr + rows[:, None] * n + cols[None, :], _mm(dinv, a, DOT), mask=cm)
        if cj == 0:
            kidx = tl.arange(0, KB)
            for k0 in range(0, k, KB):
                kc = k0 + kidx
                bm = rmask[:, None] & (kc < k)[None, :]
                bt = tl.load(b_ptr + rows[:, None] * sbr + kc[None, :] * sbc, mask=bm,
                             other=0.0).to(dt)
                tl.store(bp_ptr + rows[:, None] * k + kc[None, :], _mm(dinv, bt, DOT), mask=bm)


@triton.jit
def _chain_kernel(c_ptr, bp_ptr, y_ptr, syr, x_ptr, sxr, n, k, alpha, KB: tl.constexpr,
                  BS: tl.constexpr, BT: tl.constexpr, BF: tl.constexpr):
    # x_i = bp_i - sum_{j < i} C_ij x_j, block by block (the solved x is read back from x_ptr,
    # rows at x_ptr + r * sxr), then x += alpha * y.
    cols = tl.program_id(0) * KB + tl.arange(0, KB)
    cmask = cols < k
    ridx = tl.arange(0, BS)
    tidx = tl.arange(0, BT)
    for r0 in range(0, n, BS):
        rows = r0 + ridx
        rmask = rows < n
        acc = tl.load(bp_ptr + rows[:, None] * k + cols[None, :],
                      mask=rmask[:, None] & cmask[None, :], other=0.0)
        for j0 in range(0, r0, BT):
            js = j0 + tidx
            jmask = js < r0
            c = tl.load(c_ptr + rows[:, None] * n + js[None, :],
                        mask=rmask[:, None] & jmask[None, :], other=0.0)
            xs = tl.load(x_ptr + js[:, None] * sxr + cols[None, :],
                         mask=jmask[:, None] & cmask[None, :], other=0.0)
            acc -= tl.sum(c[:, :, None] * xs[None, :, :], axis=1)
        tl.store(x_ptr + rows[:, None] * sxr + cols[None, :], acc,
                 mask=rmask[:, None] & cmask[None, :])
        tl.debug_barrier()
    fidx = tl.arange(0, BF)
    for r0 in range(0, n, BF):
        rows = r0 + fidx
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
        dot = dtype == torch.float32
        BS = 32
        BC = 128 if dot else 32
        nblk = triton.cdiv(n, BS)
        # Index-reversed views: row n - 1 first, negative strides.
        Ar = A[n - 1:, n - 1:]
        br = b2[n - 1:]
        c = torch.empty((n, n), dtype=dtype, device=A.device) if n > BS else x
        bp = torch.empty((n, k), dtype=dtype, device=A.device)
        _precond_kernel[(nblk, max(1, triton.cdiv((nblk - 1) * BS, BC)))](
            Ar, -A.stride(0), -A.stride(1), br, -b2.stride(0), b2.stride(1), c, bp, n, k,
            BS=BS, BC=BC, KB=16, LOG2BS=5, DOT=dot, num_warps=8)
        KB = min(16, triton.next_power_of_2(k))
        NP = triton.next_power_of_2(n)
        # One [BS x BT] tile of C per row block when there is one column (up to n = 1024).
        BT = max(16, min(NP, (32768 if KB == 1 else 2048) // (BS * KB)))
        BF = max(16, min(NP, 4096 // KB))
        _chain_kernel[(triton.cdiv(k, KB),)](
            c, bp, y2[n - 1:], -y2.stride(0), x[n - 1:], -x.stride(0), n, k, float(alpha),
            KB=KB, BS=BS, BT=BT, BF=BF, num_warps=16 if BS * BT * KB >= 16384 else 4)
    return x if b.dim() == 2 else x.squeeze(1)
