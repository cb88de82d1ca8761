"""Fusion/fused_gelu_std.py: GELU (erf/tanh) then two-pass std per row of an [M, R] view.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x, APPROX_TANH: tl.constexpr):
    if APPROX_TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        return 0.5 * x * (1.0 + t)
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _gelu_std_kernel(x_ptr, out_ptr, R, denom, APPROX_TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * R
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        g = _gelu(tl.load(base + offs, mask=m, other=0.0), APPROX_TANH)
        acc += tl.where(m, g, 0.0)
    mean = tl.sum(acc, axis=0) / R
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, R, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        m = offs < R
        g = _gelu(tl.load(base + offs, mask=m, other=0.0), APPROX_TANH)
        d = tl.where(m, g - mean, 0.0)
        acc2 += d * d
    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc2, axis=0) / denom))


def fused_gelu_std(input, dim=None, keepdim=False, correction=1, approximate='none', out=None):
    x = input
    nd = x.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % nd]
    else:
        dims = sorted(set(d % nd for d in dim))
    keep = [d for d in range(nd) if d not in dims]
    xp = x.permute(*keep, *dims).contiguous().float()
    R = 1
    for d in dims:
        R *= x.shape[d]
    M = xp.numel() // R
    res = torch.empty(M, dtype=torch.float32, device=x.device)
    _gelu_std_kernel[(M,)](xp, res, R, float(max(0, R - correction)),
                           APPROX_TANH=approximate == 'tanh',
                           BLOCK_SIZE=min(2048, triton.next_power_of_2(R)))
    res = res.reshape([x.shape[d] for d in keep])
    if keepdim:
        for d in dims:
            res = res.unsqueeze(d)
    if out is not None:
        out.copy_(res)
        return out
    return res
