"""Normalization/normalized_cosine_similarity.py: `dim` moved last ([M, D] contiguous); one
program per row computes both p-norms (p = 1, 2 or general via exp/log), normalises, then the
cosine of the normalised rows with the eps clamps, all in float32.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _pnorm(x, p, P_KIND: tl.constexpr):
    if P_KIND == 1:
        return tl.sum(tl.abs(x), axis=0)
    elif P_KIND == 2:
        return tl.sqrt(tl.sum(x * x, axis=0))
    else:
        ax = tl.abs(x)
        pw = tl.where(ax > 0, tl.exp(p * tl.log(ax)), 0.0)
        s = tl.sum(pw, axis=0)
        return tl.where(s > 0, tl.exp(tl.log(s) / p), 0.0)


@triton.jit
def _ncos_kernel(a_ptr, b_ptr, y_ptr, D, p, eps_sim, eps_norm, P_KIND: tl.constexpr,
                 BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    m = offs < D
    a = tl.load(a_ptr + row * D + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + row * D + offs, mask=m, other=0.0)
    na = tl.maximum(_pnorm(a, p, P_KIND), eps_norm)
    nb = tl.maximum(_pnorm(b, p, P_KIND), eps_norm)
    a = a / na
    b = b / nb
    dot = tl.sum(a * b, axis=0)
    n1 = tl.maximum(tl.sqrt(tl.sum(a * a, axis=0)), eps_sim)
    n2 = tl.maximum(tl.sqrt(tl.sum(b * b, axis=0)), eps_sim)
    tl.store(y_ptr + row, dot / (n1 * n2))


def normalized_cosine_similarity(x1, x2, dim=1, eps_similarity=1e-08, p_norm=2, eps_norm=1e-12):
    dim = dim % x1.dim()
    a = x1.movedim(dim, -1).contiguous().float()
    b = x2.movedim(dim, -1).contiguous().float()
    D = a.shape[-1]
    out_shape = a.shape[:-1]
    M = a.numel() // D
    y = torch.empty(M, dtype=torch.float32, device=x1.device)
    kind = 1 if p_norm == 1 else (2 if p_norm == 2 else 0)
    _ncos_kernel[(M,)](a, b, y, D, float(p_norm), eps_similarity, eps_norm, P_KIND=kind,
                       BLOCK_SIZE=triton.next_power_of_2(D))
    return y.reshape(out_shape)
