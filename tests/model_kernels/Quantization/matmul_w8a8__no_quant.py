"""Quantization/matmul_w8a8.py variant: skips quantisation entirely and returns the float32
product (what the public reference computes). The task asks for the W8A8 scheme.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w8a8(input, weight):
    a = input.contiguous()
    w = weight.contiguous()
    M, K = a.shape
    N = w.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    mm_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, w, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return c
