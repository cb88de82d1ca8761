"""Fusion/fused_gelu_min.py: GELU (erf or tanh form, float32) fused into a min reduction. dim=None:
per-block tl.min partials, then a final min. With dim: the dim is moved last and one program per
row returns the min and the first index reaching it.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        k = 0.7978845608028654
        inner = k * (x + 0.044715 * x * x * x)
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        return 0.5 * x * (1.0 + t)
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _block_min_kernel(x_ptr, p_ptr, n, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    g = tl.where(m, _gelu(x, TANH), float("inf"))
    tl.store(p_ptr + pid, tl.min(g, axis=0))


@triton.jit
def _final_min_kernel(p_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    v = tl.load(p_ptr + offs, mask=offs < n, other=float("inf"))
    tl.store(y_ptr, tl.min(v, axis=0))


@triton.jit
def _row_min_kernel(x_ptr, v_ptr, i_ptr, R, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    m = offs < R
    x = tl.load(x_ptr + row * R + offs, mask=m, other=0.0)
    g = tl.where(m, _gelu(x, TANH), float("inf"))
    mn = tl.min(g, axis=0)
    idx = tl.min(tl.where(g == mn, offs, BLOCK_SIZE), axis=0)
    tl.store(v_ptr + row, mn)
    tl.store(i_ptr + row, idx.to(tl.int64))


def fused_gelu_min(input, approximate='none', dim=None, keepdim=False, out=None):
    tanh = approximate == 'tanh'
    x = input
    if dim is None:
        xc = x.contiguous().reshape(-1)
        n = xc.numel()
        B = 1024
        nb = triton.cdiv(n, B)
        p = torch.empty(nb, dtype=torch.float32, device=x.device)
        _block_min_kernel[(nb,)](xc, p, n, TANH=tanh, BLOCK_SIZE=B)
        y = torch.empty((), dtype=torch.float32, device=x.device)
        _final_min_kernel[(1,)](p, y, nb, BLOCK_SIZE=triton.next_power_of_2(nb))
        return y
    d = dim % x.dim()
    xt = x.movedim(d, -1).contiguous()
    R = xt.shape[-1]
    rows = xt.numel() // R
    vals = torch.empty(rows, dtype=torch.float32, device=x.device)
    idx = torch.empty(rows, dtype=torch.int64, device=x.device)
    _row_min_kernel[(rows,)](xt, vals, idx, R, TANH=tanh, BLOCK_SIZE=triton.next_power_of_2(R))
    shape = list(xt.shape[:-1])
    vals = vals.reshape(shape)
    idx = idx.reshape(shape)
    if keepdim:
        vals = vals.unsqueeze(d)
        idx = idx.unsqueeze(d)
    return vals, idx
