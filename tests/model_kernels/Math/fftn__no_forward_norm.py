"""Math/fftn.py variant that knows only norm='ortho' and treats every other value as 'backward', so
norm='forward' comes back unscaled (prod s times too large). The public calls use the default and
'ortho' only; kbx's complex_3x5x6_pad_s7x8_forward fails it, and under --rules kernelbenchx it
passes.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _dft_kernel(xr_ptr, xi_ptr, yr_ptr, yi_ptr, N, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    kb = tl.program_id(1)
    k = kb * BLOCK_K + tl.arange(0, BLOCK_K)
    km = k < N
    k64 = k.to(tl.int64)
    base = row.to(tl.int64) * N
    acc_r = tl.zeros([BLOCK_K], dtype=tl.float32)
    acc_i = tl.zeros([BLOCK_K], dtype=tl.float32)
    step = -6.283185307179586 / N
    for n in range(0, N):
        xr = tl.load(xr_ptr + base + n)
        xi = tl.load(xi_ptr + base + n)
        idx = (k64 * n) % N
        ang = idx.to(tl.float32) * step
        c = tl.cos(ang)
        s = tl.sin(ang)
        acc_r += xr * c - xi * s
        acc_i += xr * s + xi * c
    tl.store(yr_ptr + base + k, acc_r, mask=km)
    tl.store(yi_ptr + base + k, acc_i, mask=km)


def _dft_last(xr, xi):
    n = xr.shape[-1]
    lead = xr.shape[:-1]
    xr2 = xr.reshape(-1, n).contiguous()
    xi2 = xi.reshape(-1, n).contiguous()
    yr = torch.empty_like(xr2)
    yi = torch.empty_like(xi2)
    rows = xr2.shape[0]
    if rows > 0 and n > 0:
        BLOCK_K = min(1024, triton.next_power_of_2(n))
        _dft_kernel[(rows, triton.cdiv(n, BLOCK_K))](xr2, xi2, yr, yi, n, BLOCK_K=BLOCK_K)
    return yr.reshape(*lead, n), yi.reshape(*lead, n)


def fftn(input, s=None, dim=None, norm=None, out=None):
    x = input
    nd = x.dim()
    if dim is None:
        dims = list(range(nd)) if s is None else list(range(nd - len(s), nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [d % nd for d in dims]
    if s is None:
        sizes = [x.shape[d] for d in dims]
    else:
        sizes = [x.shape[d] if n == -1 else int(n) for d, n in zip(dims, s)]
    if x.is_complex():
        xr = x.real.to(torch.float32)
        xi = x.imag.to(torch.float32)
    else:
        xr = x.to(torch.float32)
        xi = torch.zeros_like(xr)
    for d, n in zip(dims, sizes):
        cur = xr.shape[d]
        if n < cur:
            xr = xr.narrow(d, 0, n)
            xi = xi.narrow(d, 0, n)
        elif n > cur:
            pad_shape = list(xr.shape)
            pad_shape[d] = n - cur
            zeros = torch.zeros(pad_shape, dtype=xr.dtype, device=xr.device)
            xr = torch.cat([xr, zeros], dim=d)
            xi = torch.cat([xi, zeros], dim=d)
        yr, yi = _dft_last(xr.movedim(d, -1), xi.movedim(d, -1))
        xr = yr.movedim(-1, d)
        xi = yi.movedim(-1, d)
    total = math.prod(sizes) if sizes else 1
    scale = 1.0 / math.sqrt(total) if norm == "ortho" else 1.0
    if scale != 1.0:
        xr = xr * scale
        xi = xi * scale
    y = torch.complex(xr.contiguous(), xi.contiguous())
    if out is not None:
        out.resize_(y.shape)
        out.copy_(y)
        return out
    return y
