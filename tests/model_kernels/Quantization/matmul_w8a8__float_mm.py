"""Quantization/matmul_w8a8.py variant, weaker-model style: quantises with x * (1/scale) and
floor(x + 0.5) (round half up), then does a float32 tl.dot on the dequantised values
(qa * sa) @ (qw * sw). Mathematically the same scheme; ties and reciprocal rounding differ in rare
elements and the float32 product of dequantised values is within float32 rounding of the exact
int sum times the scales.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def quant_kernel(x_ptr, y_ptr, L, sr, sc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    x = tl.load(x_ptr + r * sr + offs * sc, mask=m, other=0.0)
    amax = tl.max(tl.abs(x), axis=0)
    scale = amax / 127.0
    inv = tl.where(amax > 0, 1.0 / scale, 0.0)
    q = tl.floor(x * inv + 0.5)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(y_ptr + r * sr + offs * sc, q * scale, mask=m)


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
    da = torch.empty_like(a)
    dw = torch.empty_like(w)
    quant_kernel[(M,)](a, da, K, K, 1, BLOCK=triton.next_power_of_2(K))
    quant_kernel[(N,)](w, dw, K, 1, N, BLOCK=triton.next_power_of_2(K))
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    mm_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](da, dw, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return c
