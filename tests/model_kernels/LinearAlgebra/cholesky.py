"""LinearAlgebra/cholesky.py: left-looking Cholesky, one program per matrix of the batch. Column j
of L is A[:, j] minus the dot products of the rows of the already computed columns with row j
(a masked [BLOCK, BLOCK] tile of L and tl.sum), divided by the pivot sqrt(A[j, j] - |L[j, :j]|^2).
Complex matrices are handled as (real, imaginary) pairs read through torch.view_as_real, so the
same kernel covers float32/float64/complex64/complex128; only A's lower triangle is read. A second
kernel writes the result: L, or for upper=True L^H (transposed store, conjugated imaginary part).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _chol_kernel(a_ptr, l_ptr, n, a_bs, a_r, a_c, l_bs, IS_COMPLEX: tl.constexpr, BLOCK: tl.constexpr):
    bid = tl.program_id(0)
    ab = a_ptr + bid * a_bs
    lb = l_ptr + bid * l_bs
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    # the work buffer holds L row-major as (re, im) pairs: element (i, k) at 2 * (i * n + k)
    for j in range(0, n):
        km = cols < j
        tile_m = (rows[:, None] < n) & km[None, :]
        t_re = tl.load(lb + 2 * (rows[:, None] * n + cols[None, :]), mask=tile_m, other=0.0)
        lj_re = tl.load(lb + 2 * (j * n + cols), mask=km, other=0.0)
        if IS_COMPLEX:
            t_im = tl.load(lb + 2 * (rows[:, None] * n + cols[None, :]) + 1, mask=tile_m, other=0.0)
            lj_im = tl.load(lb + 2 * (j * n + cols) + 1, mask=km, other=0.0)
            # sum_k L[i, k] * conj(L[j, k])
            s_re = tl.sum(t_re * lj_re[None, :] + t_im * lj_im[None, :], axis=1)
            s_im = tl.sum(t_im * lj_re[None, :] - t_re * lj_im[None, :], axis=1)
        else:
            s_re = tl.sum(t_re * lj_re[None, :], axis=1)
        # column j of A, lower part (rows >= j): A[i, j]
        cm = (rows >= j) & (rows < n)
        if IS_COMPLEX:
            a_re = tl.load(ab + rows * a_r + j * a_c, mask=cm, other=0.0)
            a_im = tl.load(ab + rows * a_r + j * a_c + 1, mask=cm, other=0.0)
        else:
            a_re = tl.load(ab + rows * a_r + j * a_c, mask=cm, other=0.0)
        v_re = a_re - s_re
        d = tl.sqrt(tl.sum(tl.where(rows == j, v_re, 0.0), axis=0))
        out_re = tl.where(rows == j, d, v_re / d)
        out_re = tl.where(cm, out_re, 0.0)
        tl.store(lb + 2 * (rows * n + j), out_re, mask=cm)
        if IS_COMPLEX:
            v_im = a_im - s_im
            out_im = tl.where(rows == j, 0.0, v_im / d)
            out_im = tl.where(cm, out_im, 0.0)
            tl.store(lb + 2 * (rows * n + j) + 1, out_im, mask=cm)
        tl.debug_barrier()


@triton.jit
def _place_kernel(l_ptr, o_ptr, n, l_bs, o_bs, IS_COMPLEX: tl.constexpr, UPPER: tl.constexpr,
                  BLOCK: tl.constexpr):
    bid = tl.program_id(0)
    lb = l_ptr + bid * l_bs
    ob = o_ptr + bid * o_bs
    r = tl.arange(0, BLOCK)
    m = (r[:, None] < n) & (r[None, :] < n)
    low = m & (r[:, None] >= r[None, :])
    src = 2 * (r[:, None] * n + r[None, :])
    re = tl.load(lb + src, mask=low, other=0.0)
    if UPPER:
        dst = 2 * (r[None, :] * n + r[:, None])  # U[k, i] = conj(L[i, k])
    else:
        dst = src
    tl.store(ob + dst, re, mask=m)
    if IS_COMPLEX:
        im = tl.load(lb + src + 1, mask=low, other=0.0)
        if UPPER:
            im = -im
        tl.store(ob + dst + 1, im, mask=m)


def cholesky(A, upper=False, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    Ab = A.reshape(-1, n, n)
    nb = Ab.shape[0]
    is_complex = A.is_complex()
    if is_complex:
        Ar = torch.view_as_real(Ab.resolve_conj())  # [nb, n, n, 2]
        real_dtype = Ar.dtype
        a_bs, a_r, a_c = Ar.stride(0), Ar.stride(1), Ar.stride(2)
    else:
        Ar = Ab
        real_dtype = A.dtype
        a_bs, a_r, a_c = Ar.stride(0), Ar.stride(1), Ar.stride(2)
    work = torch.zeros(nb, n, n, 2, dtype=real_dtype, device=A.device)
    res = torch.empty(nb, n, n, 2, dtype=real_dtype, device=A.device)
    BLOCK = max(triton.next_power_of_2(n), 2)
    if nb > 0 and n > 0:
        _chol_kernel[(nb,)](Ar, work, n, a_bs, a_r, a_c, n * n * 2, IS_COMPLEX=is_complex, BLOCK=BLOCK)
        _place_kernel[(nb,)](work, res, n, n * n * 2, n * n * 2, IS_COMPLEX=is_complex, UPPER=upper,
                             BLOCK=BLOCK)
    if is_complex:
        L = torch.view_as_complex(res)
    else:
        L = res[..., 0]
        L = L.contiguous()
    L = L.reshape(*batch, n, n)
    if out is not None:
        out.copy_(L)
        return out
    return L
