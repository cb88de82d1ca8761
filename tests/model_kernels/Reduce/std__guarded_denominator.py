"""Reduce/std.py, variant with a guarded denominator: as std.py, but divides by
max(R - correction, 1) to avoid a division by zero, as generated kernels often do. Every upstream
call has R > correction and passes; kbx's added case size1_dim_correction1_gives_nan_4x1 expects
torch.std's NaN (0 / 0) and gets 0.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _std_kernel(x_ptr, out_ptr, R, denom, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * R
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(base + offs, mask=offs < R, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / R
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        x = tl.load(base + offs, mask=m, other=0.0).to(tl.float32)
        d = tl.where(m, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / denom
    tl.store(out_ptr + row, tl.sqrt(var))


def std(input, dim=None, correction=1, keepdim=False, out=None):
    x = input
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
    M = xp.numel() // R if R > 0 else 0
    res = torch.empty(M, dtype=torch.float32, device=x.device)
    denom = float(max(R - correction, 1))
    BLOCK_SIZE = min(2048, triton.next_power_of_2(max(R, 1)))
    _std_kernel[(M,)](xp, res, R, denom, BLOCK_SIZE=BLOCK_SIZE)
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    if out is not None:
        out.copy_(res)
        return out
    return res
