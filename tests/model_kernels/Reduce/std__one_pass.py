"""Reduce/std.py variant, weaker-model style: one pass accumulating sum and sum of squares in
float32, var = (sumsq - sum^2 / n) / (n - correction). Catastrophic cancellation when the mean is
large relative to the spread (mean 100, std 1): a numerically unsound algorithm.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _std_kernel(x_ptr, out_ptr, R, denom, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    s = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * R + offs, mask=offs < R, other=0.0)
        s += x
        s2 += x * x
    total = tl.sum(s, axis=0)
    total2 = tl.sum(s2, axis=0)
    var = (total2 - total * total / R) / denom
    tl.store(out_ptr + row, tl.sqrt(tl.maximum(var, 0.0)))


def std(input, dim=None, correction=1, keepdim=False, out=None):
    x = input
    nd = x.dim()
    dims = list(range(nd)) if dim is None else ([dim % nd] if isinstance(dim, int) else sorted(d % nd for d in dim))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // R
    res = torch.empty(M, dtype=torch.float32, device=x.device)
    _std_kernel[(M,)](xp, res, R, float(R - correction), BLOCK_SIZE=512)
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    return res
