"""Fusion/fused_add_mean.py: r = input + alpha * other is formed on the fly; reduced dims are
permuted last ([M, R] view after broadcasting other with expand), one program per output row
with a blocked float32 (or float64 with dtype=float64) sum, divided by R.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _add_mean_kernel(x_ptr, o_ptr, y_ptr, R, alpha, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=y_ptr.dtype.element_ty)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        x = tl.load(x_ptr + row * R + offs, mask=m, other=0.0).to(y_ptr.dtype.element_ty)
        o = tl.load(o_ptr + row * R + offs, mask=m, other=0.0).to(y_ptr.dtype.element_ty)
        acc += x + alpha * o
    tl.store(y_ptr + row, tl.sum(acc, axis=0) / R)


def fused_add_mean(input, other, dim=None, alpha=1, keepdim=False, dtype=None, out=None):
    x = input
    if not torch.is_tensor(other):
        other = torch.full((), float(other), dtype=x.dtype, device=x.device)
    o = other.expand_as(x)
    odt = dtype if dtype is not None else x.dtype
    nd = x.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % nd]
    else:
        dims = sorted(set(d % nd for d in dim))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous()
    op = o.permute(*keep, *dims).contiguous()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // max(R, 1)
    y = torch.empty(M, dtype=odt, device=x.device)
    _add_mean_kernel[(M,)](xp, op, y, R, float(alpha), BLOCK_SIZE=min(1024, triton.next_power_of_2(R)))
    if keepdim:
        shape = [1 if d in dims else x.shape[d] for d in range(nd)]
    else:
        shape = [x.shape[d] for d in keep]
    y = y.reshape(shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
