"""Fusion/fused_bmm_dropout_gelu.py variant whose dropout mask is the same in every batch: the random
draw is keyed on the element's index within its (N, P) matrix, tl.rand(seed, n * P + p), leaving out
the batch offset b * N * P (a common slip when the flat index is built per program). The density
and the scaling are right, so every kept value and every drop count is plausible, but the
elements are not independently zeroed as the description requires: out[b] == 0 exactly where
out[0] == 0 for every batch b, which torch's dropout does with probability (p^2 + (1-p)^2)^(N*P)
-- 0.5^(N*P) at p = 0.5, i.e. never. A careful judge compares the masks of different batches.

Otherwise as the correct kernel: one Triton kernel per (16x16 output tile, batch): the tile of
z = input1 @ input2 is accumulated in float32 with tl.dot (IEEE precision, any strides), rounded to
the inputs' dtype (as torch's bmm result is); in training mode with p > 0 each element draws
tl.rand(seed, global flat index) -- a fresh seed from torch's generator per call -- and is dropped
when the draw is < p, survivors multiplied by 1 / (1 - p) and rounded to the dtype again; then GELU
(erf form for 'none', tanh form for 'tanh') in float32, stored in the inputs' dtype. Dropped
elements are 0 (GELU(0) = 0). Eval mode or p = 0 skips the dropout. With `out` the result is
copied into it and returned; the inputs are never written (`inplace` needs nothing).
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_dropout_gelu_kernel(a_ptr, b_ptr, o_ptr, N, M, P, sab, san, sam, sbb, sbm, sbp,
                             p, scale, seed, DROPOUT: tl.constexpr, APPROX_TANH: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_p = tl.program_id(1)
    bi = tl.program_id(2)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rp = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    nmask = rn < N
    pmask = rp < P
    acc = tl.zeros([BLOCK_N, BLOCK_P], dtype=tl.float32)
    for k0 in range(0, M, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < M
        a = tl.load(a_ptr + bi * sab + rn[:, None] * san + rk[None, :] * sam,
                    mask=nmask[:, None] & kmask[None, :], other=0.0)
        b = tl.load(b_ptr + bi * sbb + rk[:, None] * sbm + rp[None, :] * sbp,
                    mask=kmask[:, None] & pmask[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    z = acc.to(o_ptr.dtype.element_ty).to(tl.float32)
    flat = bi * N * P + rn[:, None] * P + rp[None, :]
    if DROPOUT:
        r = tl.rand(seed, rn[:, None] * P + rp[None, :])
        keep = r >= p
        z = tl.where(keep, (z * scale).to(o_ptr.dtype.element_ty).to(tl.float32), 0.0)
    if APPROX_TANH:
        t = 0.7978845608028654 * (z + 0.044715 * z * z * z)
        th = 1.0 - 2.0 / (tl.exp(2.0 * t) + 1.0)
        g = 0.5 * z * (1.0 + th)
    else:
        g = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    tl.store(o_ptr + flat, g.to(o_ptr.dtype.element_ty), mask=nmask[:, None] & pmask[None, :])


def fused_bmm_dropout_gelu(input1, input2, p=0.5, training=True, inplace=False, approximate='none', *, out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    B, N, M = input1.shape
    B2, M2, P = input2.shape
    if B != B2 or M != M2:
        raise ValueError("bmm: shapes do not match")
    res = torch.empty((B, N, P), dtype=input1.dtype, device=input1.device)
    dropout = bool(training) and p > 0.0
    if res.numel() > 0:
        if dropout and p >= 1.0:
            res.zero_()
        else:
            seed = int(torch.randint(0, 2 ** 31 - 1, (1,)).item())
            scale = 1.0 / (1.0 - p) if dropout else 1.0
            BN, BP, BK = 16, 16, 16
            grid = (triton.cdiv(N, BN), triton.cdiv(P, BP), B)
            _bmm_dropout_gelu_kernel[grid](
                input1, input2, res, N, M, P,
                input1.stride(0), input1.stride(1), input1.stride(2),
                input2.stride(0), input2.stride(1), input2.stride(2),
                float(p), scale, seed, DROPOUT=dropout, APPROX_TANH=approximate == 'tanh',
                BLOCK_N=BN, BLOCK_P=BP, BLOCK_K=BK)
    if out is not None:
        out.copy_(res)
        return out
    return res
