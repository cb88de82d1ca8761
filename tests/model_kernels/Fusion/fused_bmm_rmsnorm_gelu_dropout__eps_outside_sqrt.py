"""Fusion/fused_bmm_rmsnorm_gelu_dropout.py, wrong variant: the same fused tl.dot / RMSNorm / GELU /
dropout kernel, but the normalisation divides by sqrt(mean(z^2)) + eps, adding eps outside the
square root (the "x / (std + eps)" habit from LayerNorm-style code). The description defines
r = z / sqrt(mean(z^2) + eps): with the default eps 1e-5 and mean(z^2) ~ K the two agree to a few
ulps, but with eps = 1e-2 (an explicit argument) rows shift by about eps / rms, ~0.3%, far outside
float32 rounding, so the result is not the RMSNorm the task asks for.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_rms_gelu_drop_kernel(a_ptr, b_ptr, y_ptr, N, K, P,
                              sab, san, sak, sbb, sbk, sbp, syb, syn, syp,
                              eps, p, scale, seed,
                              TRAINING: tl.constexpr, TANH: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_P: tl.constexpr):
    bid = tl.program_id(0)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_P)
    rmask = rows < N
    cmask = cols < P
    acc = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        kmask = ks < K
        a = tl.load(a_ptr + bid * sab + rows[:, None] * san + ks[None, :] * sak,
                    mask=rmask[:, None] & kmask[None, :], other=0.0)
        b = tl.load(b_ptr + bid * sbb + ks[:, None] * sbk + cols[None, :] * sbp,
                    mask=kmask[:, None] & cmask[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    # RMSNorm over the last dimension (no weight)
    ms = tl.sum(acc * acc, axis=1) / P
    r = acc / (tl.sqrt(ms) + eps)[:, None]
    if TANH:
        inner = 0.7978845608028654 * (r + 0.044715 * r * r * r)
        th = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        g = 0.5 * r * (1.0 + th)
    else:
        g = 0.5 * r * (1.0 + tl.math.erf(r * 0.7071067811865476))
    if TRAINING:
        offs = (bid * N + rows[:, None]) * P + cols[None, :]
        keep = tl.rand(seed, offs) >= p
        g = tl.where(keep, g * scale, 0.0)
    tl.store(y_ptr + bid * syb + rows[:, None] * syn + cols[None, :] * syp, g,
             mask=rmask[:, None] & cmask[None, :])


def fused_bmm_rmsnorm_gelu_dropout(input1, input2, normalized_shape, dropout_p=0.1, eps=1e-05, training=True,
                                   approximate='none', *, out=None):
    if isinstance(normalized_shape, (tuple, list, torch.Size)):
        normalized_shape = int(normalized_shape[-1])
    B, N, K = input1.shape
    B2, K2, P = input2.shape
    if B2 != B or K2 != K:
        raise RuntimeError("fused_bmm_rmsnorm_gelu_dropout: incompatible shapes")
    if normalized_shape != P:
        raise RuntimeError("normalized_shape must equal the last dimension of the product")
    if approximate not in ('none', 'tanh'):
        raise ValueError("approximate must be 'none' or 'tanh'")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1")
    y = out if out is not None else torch.empty((B, N, P), dtype=torch.float32, device=input1.device)
    train = bool(training) and dropout_p > 0
    scale = 1.0 / (1.0 - dropout_p) if dropout_p < 1 else 0.0
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    BLOCK_M, BLOCK_K = 16, 16
    BLOCK_P = max(16, triton.next_power_of_2(P))
    if B * N * P > 0:
        grid = (B, triton.cdiv(N, BLOCK_M))
        _bmm_rms_gelu_drop_kernel[grid](
            input1, input2, y, N, K, P,
            input1.stride(0), input1.stride(1), input1.stride(2),
            input2.stride(0), input2.stride(1), input2.stride(2),
            y.stride(0), y.stride(1), y.stride(2),
            float(eps), float(dropout_p), scale, seed,
            TRAINING=train, TANH=approximate == 'tanh',
            BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, BLOCK_P=BLOCK_P)
    return y
