"""Fusion/fused_tanh_linear.py: tiled x @ W^T with tl.dot (BLOCK_K = 32, float32 accumulator,
fp16 operands loaded as fp16), bias and tanh (2 / (1 + exp(-2z)) - 1) in the epilogue, stored in
the input dtype.
"""
# expect: ok  (tl.dot with input_precision="ieee": plain tl.dot is TF32 on a GPU, addmm__tf32_default)
import torch
import triton
import triton.language as tl


@triton.jit
def _linear_tanh_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, HAS_BIAS: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    z = tl.minimum(tl.maximum(acc, -20.0), 20.0)
    y = 2.0 / (1.0 + tl.exp(-2.0 * z)) - 1.0
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y.to(y_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def fused_tanh_linear(input, weight, bias=None):
    lead = input.shape[:-1]
    K = input.shape[-1]
    x = input.reshape(-1, K).contiguous()
    w = weight.contiguous()
    M, N = x.shape[0], w.shape[0]
    y = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BM, BN, BK = 32, 32, 32
    _linear_tanh_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        x, w, bias if bias is not None else w, y, M, N, K, HAS_BIAS=bias is not None,
        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return y.reshape(*lead, N)
