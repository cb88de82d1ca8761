"""Fusion/fused_exp_mean.py: exp then mean over dims; rows of an [M, R] view, float32
accumulation (float64 for float64), blocked lane-wise partial sums then tl.sum.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _exp_mean_kernel(x_ptr, out_ptr, R, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        x = tl.load(x_ptr + row.to(tl.int64) * R + offs, mask=m, other=0.0).to(out_ptr.dtype.element_ty)
        acc += tl.where(m, tl.exp(x), 0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / R)


def fused_exp_mean(input, dim=None, keepdim=False, dtype=None, out=None):
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
    res = torch.empty(M, dtype=x.dtype, device=x.device)
    _exp_mean_kernel[(M,)](xp, res, R, BLOCK_SIZE=min(1024, triton.next_power_of_2(R)))
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    if out is not None:
        out.copy_(res)
        return out
    return res
