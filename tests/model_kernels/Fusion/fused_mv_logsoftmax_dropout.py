"""Fusion/fused_mv_logsoftmax_dropout.py: kernel 1 is a GEMV (BLOCK_M rows per program, K loop,
float32 partial sums); kernel 2 (one program over the whole vector, looping in blocks) computes the
max, the log of the sum of exponentials, and writes log_softmax with dropout (tl.rand, seed from
torch's generator, survivors scaled by 1 / (1 - p)).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mv_kernel(a_ptr, v_ptr, z_ptr, n, m, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rm = rows < n
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k0 in range(0, m, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        km = ks < m
        a = tl.load(a_ptr + rows[:, None] * m + ks[None, :], mask=rm[:, None] & km[None, :], other=0.0)
        v = tl.load(v_ptr + ks, mask=km, other=0.0)
        acc += tl.sum(a.to(tl.float32) * v.to(tl.float32)[None, :], axis=1)
    tl.store(z_ptr + rows, acc, mask=rm)


@triton.jit
def _logsoftmax_dropout_kernel(z_ptr, y_ptr, n, p, scale, seed, TRAINING: tl.constexpr, BLOCK: tl.constexpr):
    mx = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        mx = tl.maximum(mx, tl.load(z_ptr + offs, mask=offs < n, other=-float("inf")))
    zmax = tl.max(mx, axis=0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        z = tl.load(z_ptr + offs, mask=offs < n, other=-float("inf"))
        acc += tl.where(offs < n, tl.exp(z - zmax), 0.0)
    lse = tl.log(tl.sum(acc, axis=0))
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(z_ptr + offs, mask=m, other=0.0) - zmax - lse
        if TRAINING:
            keep = tl.rand(seed, offs) >= p
            v = tl.where(keep, v * scale, 0.0)
        tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=m)


def fused_mv_logsoftmax_dropout(input, vec, p=0.5, training=True, inplace=False, dim=0, *, out=None):
    a = input.contiguous()
    v = vec.contiguous()
    n, m = a.shape
    z = torch.empty(n, dtype=torch.float32, device=a.device)
    _mv_kernel[(triton.cdiv(n, 32),)](a, v, z, n, m, BLOCK_M=32, BLOCK_K=64)
    y = torch.empty(n, dtype=a.dtype, device=a.device)
    train = training and p > 0
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    _logsoftmax_dropout_kernel[(1,)](z, y, n, float(p), scale, seed, TRAINING=train, BLOCK=1024)
    if out is not None:
        out.copy_(y)
        return out
    return y
