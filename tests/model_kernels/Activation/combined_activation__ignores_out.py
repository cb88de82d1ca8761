"""Activation/combined_activation.py variant: `out` is ignored: the result is returned in a new
tensor and `out` keeps its old contents. The description says the result is written to `out`
and `out` is returned; a careful judge fails it. The public cases never pass `out` (as
upstream), only kbx's own random_standard_256x128_128x192_0_out does.

Otherwise the kernel is Activation/combined_activation.py: one tiled Triton kernel: each program computes a
[BLOCK_M, BLOCK_N] tile of input @ weight1 with tl.dot over K in float32 (both operands read
through their strides), then the fused epilogue tanh(sigmoid(acc)) * weight2 + bias. sigmoid is
1 / (1 + exp(-acc)) (overflow-safe form), and tanh of a value in (0, 1) is
(1 - e^{-2s}) / (1 + e^{-2s}). weight2 and bias are broadcast to [N, D] on the host as views
(stride 0 along broadcast dims), so [D] rows and full [N, D] tensors use the same code. With
`out` the result is copied into it and `out` is returned.
"""
# expect-kernelbenchx: ok
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _combined_kernel(a_ptr, w_ptr, w2_ptr, b_ptr, y_ptr, M, N, K,
                     sam, sak, swk, swn, s2m, s2n, sbm, sbn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None] * sam + ks[None, :] * sak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + ks[:, None] * swk + rn[None, :] * swn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    t = tl.exp(-tl.abs(acc))
    r = 1.0 / (1.0 + t)
    s = tl.where(acc >= 0, r, t * r)
    e = tl.exp(-2.0 * s)
    act = (1.0 - e) / (1.0 + e)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    w2 = tl.load(w2_ptr + rm[:, None] * s2m + rn[None, :] * s2n, mask=mask, other=0.0)
    bb = tl.load(b_ptr + rm[:, None] * sbm + rn[None, :] * sbn, mask=mask, other=0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], act * w2 + bb, mask=mask)


def combined_activation(input, weight1, weight2, bias, *, out=None):
    M, K = input.shape
    N = weight1.shape[1]
    w2 = weight2.expand(M, N)
    b = bias.expand(M, N)
    y = torch.empty((M, N), dtype=torch.float32, device=input.device)
    if M > 0 and N > 0:
        BM, BN, BK = 32, 32, 32
        _combined_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
            input, weight1, w2, b, y, M, N, K, input.stride(0), input.stride(1),
            weight1.stride(0), weight1.stride(1), w2.stride(0), w2.stride(1),
            b.stride(0), b.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return y
