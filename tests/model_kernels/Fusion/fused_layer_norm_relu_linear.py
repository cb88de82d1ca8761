"""Fusion/fused_layer_norm_relu_linear.py: tl.dot linear + bias + ReLU (float32, ieee), then a
two-pass layer norm over the trailing normalized_shape elements (flattened rows).
"""
# expect: ok
import math
import torch
import triton
import triton.language as tl


@triton.jit
def _linear_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk,
                        HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(x_ptr + rm[:, None] * sxm + ks[None, :] * sxk, mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * swn + ks[:, None] * swk, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _layer_norm_kernel(y_ptr, o_ptr, L, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    y = tl.load(y_ptr + row * L + offs, mask=m, other=0.0)
    mean = tl.sum(y, axis=0) / L
    d = tl.where(m, y - mean, 0.0)
    var = tl.sum(d * d, axis=0) / L
    tl.store(o_ptr + row * L + offs, d / tl.sqrt(var + eps), mask=m)


def fused_layer_norm_relu_linear(input, weight, bias=None, normalized_shape=None, eps=1e-05,
                                 elementwise_affine=True):
    K = input.shape[-1]
    lead = input.shape[:-1]
    x = input.reshape(-1, K)
    M = x.shape[0]
    N = weight.shape[0]
    y = torch.empty((M, N), dtype=torch.float32, device=input.device)
    _linear_relu_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
        x, weight, bias if bias is not None else weight, y, M, N, K, x.stride(0), x.stride(1),
        weight.stride(0), weight.stride(1), HAS_BIAS=bias is not None, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    if normalized_shape is None:
        normalized_shape = (N,)
    elif isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    L = math.prod(normalized_shape)
    y = y.reshape(*lead, N).contiguous()
    o = torch.empty_like(y)
    _layer_norm_kernel[(y.numel() // L,)](y, o, L, eps, BLOCK=triton.next_power_of_2(L))
    return o
