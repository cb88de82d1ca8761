"""Fusion/fused_sum_std.py: kernel 1 sums rows of an [M, R] view (reduced dims last), kernel 2
computes the two-pass std of the M sums in one program. float32 accumulation (float64 when the
sums' dtype is float64).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum_kernel(x_ptr, s_ptr, R, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=s_ptr.dtype.element_ty)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + row * R + offs, mask=offs < R, other=0.0).to(s_ptr.dtype.element_ty)
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def _std_kernel(s_ptr, out_ptr, n, denom, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=s_ptr.dtype.element_ty)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(s_ptr + offs, mask=offs < n, other=0.0)
    mean = tl.sum(acc, axis=0) / n
    acc2 = tl.zeros([BLOCK_SIZE], dtype=s_ptr.dtype.element_ty)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < n
        v = tl.load(s_ptr + offs, mask=m, other=0.0)
        d = tl.where(m, v - mean, 0.0)
        acc2 += d * d
    tl.store(out_ptr, tl.sqrt(tl.sum(acc2, axis=0) / denom))


def fused_sum_std(input, dim=None, keepdim=False, dtype=None, correction=1, out=None):
    x = input if dtype is None else input.to(dtype)
    nd = x.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % nd]
    else:
        dims = sorted(set(d % nd for d in dim))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // R
    sums = torch.empty(M, dtype=x.dtype, device=x.device)
    _row_sum_kernel[(M,)](xp, sums, R, BLOCK_SIZE=min(1024, triton.next_power_of_2(R)))
    res = torch.empty((), dtype=x.dtype, device=x.device)
    if M <= correction:
        res.zero_()
    else:
        _std_kernel[(1,)](sums, res, M, float(M - correction),
                          BLOCK_SIZE=min(1024, triton.next_power_of_2(M)))
    if out is not None:
        out.copy_(res)
        return out
    return res
