"""Fusion/fused_exp_mean.py variant, weaker-model style: a scalar running sum (sequential order
over blocks of 64: tl.sum per block, then added to a float32 scalar) -- a legitimate but
less accurate summation order. The task's rtol 5e-5 is meant to admit it.
"""
# expect: ok
# expect-cuda: compile_error  (the running sum starts as a float32 scalar and takes float64 blocks in kbx's dtype=float64 case: Triton on a GPU rejects a loop-carried value that changes type; the interpreter does not check)
# expect-kernelbenchx: ok  (that case is kbx's own)
import torch
import triton
import triton.language as tl


@triton.jit
def exp_mean_kernel(x_ptr, out_ptr, R, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * R + offs, mask=offs < R, other=float('-inf'))
        total += tl.sum(tl.exp(x), axis=0)
    tl.store(out_ptr + row, total / R)


def fused_exp_mean(input, dim=None, keepdim=False, dtype=None, out=None):
    x = input if dtype is None else input.to(dtype)
    nd = x.dim()
    dims = list(range(nd)) if dim is None else ([dim % nd] if isinstance(dim, int) else sorted(d % nd for d in dim))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // R
    res = torch.empty(M, dtype=x.dtype, device=x.device)
    exp_mean_kernel[(M,)](xp, res, R, BLOCK_SIZE=64)
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    return res
