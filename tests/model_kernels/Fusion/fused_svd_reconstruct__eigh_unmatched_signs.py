"""Fusion/fused_svd_reconstruct.py, wrong variant: the same tiled Triton U diag(S) Vh kernel, but the
"SVD" is assembled from two separate symmetric eigendecompositions (a common way to "avoid" an SVD
call): U from eigh(A A^T), V from eigh(A^T A), S = sqrt of the eigenvalues, all sorted descending.
Each factor is orthonormal and S is right, but eigenvectors are only determined up to sign (and
up to a basis within repeated/zero eigenvalues), and the two eigh calls choose those
independently, so u_i and v_i are not a matched singular pair (A v_i = +-s_i u_i at random) and
U diag(S) Vh is not A. The description asks for the product of the thin SVD A = U diag(S) Vh,
which equals A; this returns a different matrix for almost every input.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _usv_kernel(u_ptr, s_ptr, vh_ptr, o_ptr, M, N, K, sum_, suk, svk, svn, som, son,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < K
        u = tl.load(u_ptr + rm[:, None] * sum_ + rk[None, :] * suk, mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        s = tl.load(s_ptr + rk, mask=kmask, other=0.0)
        vh = tl.load(vh_ptr + rk[:, None] * svk + rn[None, :] * svn, mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        acc += tl.dot(u * s[None, :], vh, input_precision="ieee")
    tl.store(o_ptr + rm[:, None] * som + rn[None, :] * son, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def fused_svd_reconstruct(A):
    if A.dim() != 2:
        raise ValueError("fused_svd_reconstruct expects a 2-D matrix")
    m, n = A.shape
    Af = A.to(torch.float32)
    k = min(m, n)
    # A A^T = U S^2 U^T and A^T A = V S^2 V^T: take the k leading eigenpairs of each
    ev, U = torch.linalg.eigh(Af @ Af.T)
    _, V = torch.linalg.eigh(Af.T @ Af)
    U = U.flip(-1)[:, :k]
    V = V.flip(-1)[:, :k]
    S = ev.flip(-1)[:k].clamp_min(0).sqrt()
    Vh = V.T
    out = torch.empty((m, n), dtype=torch.float32, device=A.device)
    if m * n == 0:
        return out
    if k == 0:
        return out.zero_()
    S = S.contiguous()
    BM, BN, BK = 32, 32, 16
    _usv_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](
        U, S, Vh, out, m, n, k, U.stride(0), U.stride(1), Vh.stride(0), Vh.stride(1),
        out.stride(0), out.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return out
