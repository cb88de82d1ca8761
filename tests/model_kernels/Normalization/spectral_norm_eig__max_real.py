"""Normalization/spectral_norm_eig.py variant: returns the largest eigenvalue (max_i Re(lambda_i))
instead of the largest modulus max_i |lambda_i|. The kernel reduces only the real parts of
torch.linalg.eigvals, so a matrix whose dominant eigenvalue is negative, or a complex pair
(the rotation-like [[0, -2], [2, 0]] with eigenvalues +-2i, radius 2), gets the wrong value
(there: 0). The description asks for the spectral radius, the largest modulus of the possibly
complex eigenvalues.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _max_eig_kernel(ev_ptr, out_ptr, B, n, BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rb = pid * BLOCK_B + tl.arange(0, BLOCK_B)
    bmask = rb < B
    best = tl.full([BLOCK_B], float("-inf"), dtype=tl.float32)
    for n0 in range(0, n, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        m = bmask[:, None] & (rn[None, :] < n)
        re = tl.load(ev_ptr + (rb[:, None] * n + rn[None, :]) * 2, mask=m, other=float("-inf"))
        best = tl.maximum(best, tl.max(re, axis=1))
    tl.store(out_ptr + rb, best, mask=bmask)


def spectral_norm_eig(A, *, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    ev = torch.linalg.eigvals(A.float())
    ev_ri = torch.view_as_real(ev.reshape(-1, n)).contiguous()
    B = ev_ri.shape[0]
    res = out if (out is not None and out.is_contiguous()) else torch.empty(batch, dtype=torch.float32, device=A.device)
    _max_eig_kernel[(triton.cdiv(B, 16),)](ev_ri, res, B, n, BLOCK_B=16, BLOCK_N=min(128, triton.next_power_of_2(n)))
    if out is not None:
        if res is not out:
            out.copy_(res)
        return out
    return res
