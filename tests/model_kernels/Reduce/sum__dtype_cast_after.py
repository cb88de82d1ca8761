"""Reduce/sum.py variant: with `dtype=` the kernel sums the input in its own dtype (float32)
and only casts the finished sum to `dtype` (float64), i.e. torch.sum(x).to(dtype) instead of
torch.sum(x.to(dtype)). The description says the input is cast to `dtype` before summing, so
the float64 result carries float32 rounding errors (~1e-7 relative) that a float64 sum does not
have; a careful judge compares against the float64 sum with a float64 tolerance and fails it:
kbx does (rtol = atol = 1e-10 for float64 results, and its float32_64x1000_dim1_to_float64
case); the public harness's 1e-5 would pass its float64 results.

Otherwise the kernel is Reduce/sum.py: row-reduction sum. The reduced dims are permuted to the end and flattened to
[M, R]; one program per row loops over R in BLOCK_SIZE chunks. The accumulator has the output
dtype's precision class: int64 for integer inputs (exact), float64 for float64 (including the
`dtype=float64` cast of a float32 input, done by loading in the cast dtype), float32 otherwise.
The result is reshaped to the kept dims and unsqueezed for keepdim.
"""
# expect: incorrect
# expect-kernelbenchx: incorrect  (the public tolerance, rtol = atol = 1e-5 without kbx's error bound, fails this summation order on one element of a float32 case, as the public harness fails torch.sum itself on some draws)
import torch
import triton
import triton.language as tl


@triton.jit
def _sum_rows_kernel(x_ptr, out_ptr, R, IS_INT: tl.constexpr, IS_F64: tl.constexpr,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * R
    if IS_INT:
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.int64)
    elif IS_F64:
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float64)
    else:
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(base + offs, mask=offs < R, other=0)
        acc += x.to(acc.dtype)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


def sum(input, dim, keepdim=False, dtype=None):  # noqa: A001
    x = input
    cast_to = dtype
    if not x.is_floating_point():
        x = x.to(torch.int64)
    out_dtype = x.dtype
    if isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    nd = x.dim()
    dims = sorted(set(d % nd for d in dims)) if nd > 0 else []
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    out_shape = [x.shape[d] for d in keep]
    M = 1
    for s in out_shape:
        M *= s
    res = torch.empty(M, dtype=out_dtype, device=x.device)
    if M > 0:
        if R == 0:
            res.zero_()
        else:
            x2 = xp.reshape(M, R)
            BLOCK_SIZE = min(1024, triton.next_power_of_2(R))
            _sum_rows_kernel[(M,)](x2, res, R, IS_INT=not out_dtype.is_floating_point,
                                   IS_F64=out_dtype == torch.float64, BLOCK_SIZE=BLOCK_SIZE)
    res = res.reshape(out_shape)
    if cast_to is not None:
        res = res.to(cast_to)
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    return res
