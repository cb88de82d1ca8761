"""Fusion/fused_dropout_sigmoid_linear.py variant that keeps an element when its draw is < p
(treating p as the keep probability) while still scaling survivors by 1 / (1 - p): it drops with
probability 1 - p instead of p. At p = 0.5 that is indistinguishable, but at p = 0.1 it drops ~90%
of the elements where torch drops ~10%, so a careful judge fails it on the drop count (the
public 64x256 p = 0.1 training cases).

Otherwise as the correct kernel: one Triton kernel per 16x16 tile of the (M, N) output
(M = prod of input's leading dims): acc = x @ W^T accumulated in float32 with tl.dot (IEEE
precision, any strides), + bias if given, s = sigmoid(acc) = 1 / (1 + exp(-acc)); in training mode
with p > 0 each element draws tl.rand(seed, flat index) with a fresh seed from torch's generator per
call, is zeroed when the draw is < p and otherwise scaled by 1 / (1 - p). Eval mode returns s.
Returns float32 (*, N); inputs are never written.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _linear_sigmoid_dropout_kernel(x_ptr, w_ptr, b_ptr, o_ptr, M, N, K, sxm, sxk, swn, swk,
                                   p, scale, seed, HAS_BIAS: tl.constexpr, DROPOUT: tl.constexpr,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mmask = rm < M
    nmask = rn < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < K
        x = tl.load(x_ptr + rm[:, None] * sxm + rk[None, :] * sxk,
                    mask=mmask[:, None] & kmask[None, :], other=0.0)
        wt = tl.load(w_ptr + rk[:, None] * swk + rn[None, :] * swn,
                     mask=kmask[:, None] & nmask[None, :], other=0.0)
        acc += tl.dot(x, wt, input_precision="ieee")
    if HAS_BIAS:
        b = tl.load(b_ptr + rn, mask=nmask, other=0.0)
        acc += b[None, :]
    s = 1.0 / (1.0 + tl.exp(-acc))
    flat = rm[:, None] * N + rn[None, :]
    if DROPOUT:
        r = tl.rand(seed, flat)
        keep = r < p
        s = tl.where(keep, s * scale, 0.0)
    tl.store(o_ptr + flat, s, mask=mmask[:, None] & nmask[None, :])


def fused_dropout_sigmoid_linear(input, weight, bias=None, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    res = torch.empty((M, N), dtype=torch.float32, device=input.device)
    dropout = bool(training) and p > 0.0
    if res.numel() > 0:
        if dropout and p >= 1.0:
            res.zero_()
        else:
            seed = int(torch.randint(0, 2 ** 31 - 1, (1,)).item())
            scale = 1.0 / (1.0 - p) if dropout else 1.0
            BM, BN, BK = 16, 16, 32
            grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
            _linear_sigmoid_dropout_kernel[grid](
                x, weight, bias if bias is not None else weight, res, M, N, K,
                x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
                float(p), scale, seed, HAS_BIAS=bias is not None, DROPOUT=dropout,
                BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return res.reshape(*input.shape[:-1], N)
