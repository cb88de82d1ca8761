"""Reduce/min_gelu.py: GELU then min (with argmin when dim is given), rows of an [M, R] view,
first index of the minimum on ties.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _min_gelu_kernel(x_ptr, val_ptr, idx_ptr, R, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    best_v = tl.full([BLOCK_SIZE], float('inf'), tl.float32)
    best_i = tl.full([BLOCK_SIZE], 0, tl.int64)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        x = tl.load(x_ptr + row.to(tl.int64) * R + offs, mask=m, other=0.0).to(tl.float32)
        if APPROX_TANH:
            u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
            g = 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * u) - 1.0))
        else:
            g = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
        g = tl.where(m, g, float('inf'))
        upd = g < best_v
        best_v = tl.where(upd, g, best_v)
        best_i = tl.where(upd, offs.to(tl.int64), best_i)
    v = tl.min(best_v, axis=0)
    cand = tl.where(best_v == v, best_i, R)
    i = tl.min(cand, axis=0)
    tl.store(val_ptr + row, v)
    tl.store(idx_ptr + row, i)


def min_gelu(input, dim=None, keepdim=False, approximate='none', out=None):
    x = input
    nd = x.dim()
    if dim is None:
        x2 = x.contiguous().reshape(1, -1)
    else:
        d = dim % nd
        x2 = x.movedim(d, -1).contiguous().reshape(-1, x.shape[d])
    M, R = x2.shape
    vals = torch.empty(M, dtype=torch.float32, device=x.device)
    idxs = torch.empty(M, dtype=torch.int64, device=x.device)
    _min_gelu_kernel[(M,)](x2, vals, idxs, R, APPROX_TANH=approximate == 'tanh',
                           BLOCK_SIZE=min(1024, triton.next_power_of_2(R)))
    if dim is None:
        return vals.reshape(())
    d = dim % nd
    shape = list(x.shape)
    del shape[d]
    vals = vals.reshape(shape)
    idxs = idxs.reshape(shape)
    if keepdim:
        vals = vals.unsqueeze(d)
        idxs = idxs.unsqueeze(d)
    return vals, idxs
