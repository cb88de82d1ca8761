"""MatrixMultiply/symmetric_mm_and_abs_sum.py: sum |alpha * A A^T + beta * C| with the symmetry of
A A^T exploited: each off-diagonal product tile is computed once and used for both C1[i, j] and
C1[j, i], so the GEMM does half the flops of eager's addmm, and C1 is never written.

Design: grid (nt, nt) over [64 x 64] tiles of the n x n result; programs below the diagonal exit
at once. Program (bi, bj), bi <= bj, computes S = A[bi] A[bj]^T over K in 32-wide slices (both
operands are rows of A, read through its strides: the non-contiguous A needs no copy) with float32
tl.dot(input_precision="tf32x3" (each float32 operand split into a TF32 high part and a TF32 remainder, three tensor-core products: ~2^-21 relative per product, within the float32 contract, where plain TF32 at 2^-11 fails it; "ieee" would lower to the much slower FFMA path)), then reduces
|alpha * S + beta * C[bi, bj]| and, off the diagonal, |alpha * S^T + beta * C[bj, bi]| (C's
mirrored tile read through swapped strides) into one float32 partial. A one-program kernel adds
the partials in a fixed order (deterministic, no atomics) into the 0-d result; with a single tile
(n <= 64) the one program writes the result itself, in one launch. Eager forms the
full product (2 n^2 m flops), writes C1, then abs_ and sum read it twice more.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sym_abs_kernel(a_ptr, c_ptr, part_ptr, n, m, alpha, beta, sam, sak, scr, scc,
                    BETA: tl.constexpr, FINAL: tl.constexpr, BT: tl.constexpr,
                    BK: tl.constexpr):
    # FINAL: a single tile (n <= BT): the one program writes the 0-d result itself (part_ptr is
    # the output), so small inputs take one launch.
    bi = tl.program_id(0)
    bj = tl.program_id(1)
    nt = tl.num_programs(1)
    if bi > bj:
        tl.store(part_ptr + bi * nt + bj, 0.0)
    else:
        ri = bi * BT + tl.arange(0, BT)
        rj = bj * BT + tl.arange(0, BT)
        rk = tl.arange(0, BK)
        acc = tl.zeros([BT, BT], dtype=tl.float32)
        for k0 in range(0, m, BK):
            ks = k0 + rk
            kmask = ks < m
            a = tl.load(a_ptr + ri.to(tl.int64)[:, None] * sam + ks[None, :] * sak,
                        mask=(ri[:, None] < n) & kmask[None, :], other=0.0)
            bt = tl.load(a_ptr + rj.to(tl.int64)[None, :] * sam + ks[:, None] * sak,
                         mask=kmask[:, None] & (rj[None, :] < n), other=0.0)
            acc = tl.dot(a, bt, acc, input_precision="tf32x3")
        mask = (ri[:, None] < n) & (rj[None, :] < n)
        v = alpha * acc
        if BETA:
            c = tl.load(c_ptr + ri.to(tl.int64)[:, None] * scr + rj[None, :] * scc, mask=mask,
                        other=0.0)
            v = v + beta * c
        total = tl.sum(tl.sum(tl.where(mask, tl.abs(v), 0.0), axis=1), axis=0)
        if bi != bj:
            w = alpha * acc
            if BETA:
                ct = tl.load(c_ptr + rj.to(tl.int64)[None, :] * scr + ri[:, None] * scc, mask=mask,
                             other=0.0)
                w = w + beta * ct
            total += tl.sum(tl.sum(tl.where(mask, tl.abs(w), 0.0), axis=1), axis=0)
        if FINAL:
            tl.store(part_ptr, total.to(part_ptr.dtype.element_ty))
        else:
            tl.store(part_ptr + bi * nt + bj, total)


@triton.jit
def _sum_partials_kernel(part_ptr, out_ptr, G, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(0, G, BLOCK):
        acc += tl.load(part_ptr + s + offs, mask=s + offs < G, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def symmetric_mm_and_abs_sum(A, C, alpha, beta):
    n, m = A.shape
    if tuple(C.shape) != (n, n):
        raise RuntimeError(f"symmetric_mm_and_abs_sum: C {list(C.shape)} must be [{n}, {n}]")
    out = torch.empty((), dtype=torch.result_type(A, C), device=A.device)
    if n == 0:
        return out.zero_()
    BT, BK = 64, 32
    nt = triton.cdiv(n, BT)
    if nt == 1:
        _sym_abs_kernel[(1, 1)](A, C, out, n, m, float(alpha), float(beta), A.stride(0),
                                A.stride(1), C.stride(0), C.stride(1), BETA=beta != 0, FINAL=True,
                                BT=BT, BK=BK, num_warps=4, num_stages=3)
        return out
    part = torch.empty(nt * nt, dtype=torch.float32, device=A.device)
    _sym_abs_kernel[(nt, nt)](A, C, part, n, m, float(alpha), float(beta), A.stride(0),
                              A.stride(1), C.stride(0), C.stride(1), BETA=beta != 0, FINAL=False,
                              BT=BT, BK=BK, num_warps=4, num_stages=3)
    _sum_partials_kernel[(1,)](part, out, nt * nt,
                               BLOCK=min(1024, max(16, triton.next_power_of_2(nt * nt))), num_warps=4)
    return out
