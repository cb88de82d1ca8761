"""Reduce/mean.py, variant without input validation: identical to mean.py except that an integer
input without dtype is not refused; it is averaged in float32 and stored in the input's dtype (as
many generated kernels do: out = torch.empty(..., dtype=dtype or input.dtype)). Every upstream call
passes; kbx's added case int32_without_dtype_raises expects torch.mean's RuntimeError.

Reduced dims are permuted to the end and flattened to [M, R]; one program per row loops over R in
BLOCK_SIZE chunks with a float32 accumulator (float64 when the compute dtype is float64).
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _mean_rows_kernel(x_ptr, out_ptr, R, inv_r, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * R
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(base + offs, mask=offs < R, other=0.0).to(tl.float32)
        acc += x
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, (total * inv_r).to(out_ptr.dtype.element_ty))


def mean(input_tensor, dim, keepdim=False, dtype=None, out=None):
    x = input_tensor
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    nd = x.dim()
    dims = sorted(set(d % nd for d in dims))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // max(R, 1)
    x2 = xp.reshape(M, R)
    res = torch.empty(M, dtype=x.dtype, device=x.device)
    BLOCK_SIZE = min(1024, triton.next_power_of_2(max(R, 1)))
    _mean_rows_kernel[(M,)](x2, res, R, 1.0 / R, BLOCK_SIZE=BLOCK_SIZE)
    out_shape = [x.shape[d] for d in keep]
    res = res.reshape(out_shape)
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    if out is not None:
        out.copy_(res)
        return out
    return res
