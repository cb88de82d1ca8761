"""Fusion/fused_log_softmax_linear.py: kernel 1 is a tiled linear (tl.dot, float32 accumulation,
ieee for float32; float64 inputs use an fp64 elementwise dot loop); the logits (kept in float32 /
float64) go through a row-wise stable log-softmax kernel along `dim` (moved last), result cast.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk,
                   HAS_BIAS: tl.constexpr, IS_F64: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=y_ptr.dtype.element_ty)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
        a = tl.load(x_ptr + rm[:, None] * sxm + ks[None, :] * sxk, mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        # weight is [N, K]: load the transposed tile [BLOCK_K, BLOCK_N]
        b = tl.load(w_ptr + rn[None, :] * swn + ks[:, None] * swk, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if IS_F64:
            acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
        else:
            acc += tl.dot(a, b, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(acc.dtype)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _log_softmax_kernel(y_ptr, o_ptr, L, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    y = tl.load(y_ptr + row * L + offs, mask=m, other=float('-inf'))
    ymax = tl.max(y, axis=0)
    e = tl.where(m, tl.exp(y - ymax), 0.0)
    lse = tl.log(tl.sum(e, axis=0)) + ymax
    tl.store(o_ptr + row * L + offs, (y - lse).to(o_ptr.dtype.element_ty), mask=m)


def fused_log_softmax_linear(input, weight, bias=None, dim=-1, dtype=None):
    lead = input.shape[:-1]
    K = input.shape[-1]
    x = input.reshape(-1, K)
    M = x.shape[0]
    N = weight.shape[0]
    acc_dtype = torch.float64 if input.dtype == torch.float64 else torch.float32
    y = torch.empty((M, N), dtype=acc_dtype, device=input.device)
    is64 = acc_dtype == torch.float64
    BM, BN, BK = (16, 16, 16) if is64 else (32, 32, 32)
    _linear_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        x, weight, bias if bias is not None else weight, y, M, N, K, x.stride(0), x.stride(1),
        weight.stride(0), weight.stride(1), HAS_BIAS=bias is not None, IS_F64=is64,
        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    out_dtype = dtype if dtype is not None else input.dtype
    if dtype is not None:
        y = y.to(dtype).to(torch.float64 if dtype == torch.float64 else acc_dtype)
    y = y.reshape(*lead, N)
    d = dim % y.dim()
    yt = y.movedim(d, -1).contiguous()
    L = yt.shape[-1]
    o = torch.empty(yt.shape, dtype=out_dtype, device=input.device)
    _log_softmax_kernel[(yt.numel() // L,)](yt, o, L, BLOCK=triton.next_power_of_2(L))
    return o.movedim(-1, d)
