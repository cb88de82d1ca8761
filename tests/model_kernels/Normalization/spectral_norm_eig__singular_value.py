"""Normalization/spectral_norm_eig.py variant: computes the spectral NORM (largest singular value,
sqrt of the largest eigenvalue of A^T A) instead of the spectral radius. Triton forms the Gram
matrix A^T A per matrix (float32, IEEE tl.dot), torch.linalg.eigvalsh gives its eigenvalues and a
Triton kernel takes sqrt of the largest. sigma_max >= max|lambda| with equality only for normal
matrices, so general matrices come out too large; the description states the result is the
largest eigenvalue modulus "not the largest singular value".
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _gram_kernel(a_ptr, g_ptr, n, sab, sar, sac, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    m = (r[:, None] < n) & (r[None, :] < n)
    a = tl.load(a_ptr + b * sab + r[:, None] * sar + r[None, :] * sac, mask=m, other=0.0)
    g = tl.dot(tl.trans(a), a, input_precision="ieee")
    tl.store(g_ptr + b * n * n + r[:, None] * n + r[None, :], g, mask=m)


@triton.jit
def _sqrt_max_kernel(e_ptr, out_ptr, n, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    e = tl.load(e_ptr + b * n + r, mask=r < n, other=0.0)
    tl.store(out_ptr + b, tl.sqrt(tl.maximum(tl.max(e, axis=0), 0.0)))


def spectral_norm_eig(A, *, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    a = A.float().reshape(-1, n, n)
    B = a.shape[0]
    BLOCK = max(16, triton.next_power_of_2(n))
    gram = torch.empty((B, n, n), dtype=torch.float32, device=A.device)
    _gram_kernel[(B,)](a, gram, n, a.stride(0), a.stride(1), a.stride(2), BLOCK=BLOCK)
    evals = torch.linalg.eigvalsh(gram).contiguous()
    res = out if (out is not None and out.is_contiguous()) else torch.empty(batch, dtype=torch.float32, device=A.device)
    _sqrt_max_kernel[(B,)](evals, res, n, BLOCK=BLOCK)
    if out is not None:
        if res is not out:
            out.copy_(res)
        return out
    return res
