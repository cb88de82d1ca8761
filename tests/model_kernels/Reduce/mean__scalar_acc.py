"""Reduce/mean.py variant, weaker-model style: block-wise partial sums added into a scalar
(a different summation order), divides by R at the end, and always accumulates in float32 even
for dtype=float64 (float32-valued inputs, 12 terms: error ~1e-7, inside float64's 1e-5 contract).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mean_kernel(x_ptr, out_ptr, R, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    acc = 0.0
    for start in range(0, R, BLOCK_SIZE):
        idx = start + offs
        x = tl.load(x_ptr + row * R + idx, mask=idx < R, other=0.0).to(tl.float32)
        acc += tl.sum(x, axis=0)
    tl.store(out_ptr + row, acc / R)


def mean(input_tensor, dim, keepdim=False, dtype=None, out=None):
    x = input_tensor if dtype is None else input_tensor.to(dtype)
    if not x.is_floating_point():
        raise RuntimeError("mean(): input dtype must be floating point")
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted(d % x.dim() for d in dims)
    keep = [d for d in range(x.dim()) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // R
    res = torch.empty(M, dtype=x.dtype, device=x.device)
    _mean_kernel[(M,)](xp, res, R, BLOCK_SIZE=256)
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    if out is not None:
        out.copy_(res)
        return out
    return res
