"""SpatialOps/grid_sample_with_affine.py: F.affine_grid + F.grid_sample (a spatial transformer) in
one kernel: the sampling grid is computed in registers and never written to memory.

Design: a flat 1-D grid over the output pixels (N x H_out x W_out), BLOCK = 256 per program. Each
pixel forms its base coordinates as affine_grid does (torch.linspace(-1, 1, steps): start + i *
step on the first half, end - (steps - 1 - i) * step on the second, scaled by (steps - 1) / steps
without align_corners), applies theta[n] (read once per pixel, converted to float32 as
theta.to(input.dtype) would) and then samples exactly as grid_sample: unnormalise, padding mode
('zeros' masks out-of-image taps, 'border' clamps, 'reflection' reflects then clamps), bilinear
weights or nearest with round-half-to-even, the coordinates and weights reused for every channel
(a loop over C: 4 masked gathers and one store per channel). Eager materialises the
(N, H_out, W_out, 2) grid with a linspace, a batched matmul and copies, then reads it back in
grid_sample: about five launches and a grid round trip through HBM. The input is addressed
through its strides (non-contiguous inputs need no copy).
"""
# expect: ok
import torch
import triton
import triton.language as tl

_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


@triton.jit
def _rne(x):
    r = (x + 12582912.0) - 12582912.0
    return tl.where(tl.abs(x) < 4194304.0, r, x)


@triton.jit
def _reflect(x, twice_low, twice_high):
    lo = twice_low * 0.5
    span = (twice_high - twice_low) * 0.5
    v = tl.abs(x - lo)
    flips = tl.floor(v / span)
    extra = v - flips * span
    odd = (flips - 2.0 * tl.floor(flips * 0.5)) != 0.0
    r = tl.where(odd, span - extra + lo, extra + lo)
    return tl.where(span > 0, r, 0.0)


@triton.jit
def _source(coord, size, PAD: tl.constexpr, ALIGN: tl.constexpr):
    # torch's grid_sampler_compute_source_index: unnormalise, then apply the padding mode.
    fs = size.to(tl.float32)
    if ALIGN:
        x = (coord + 1.0) * 0.5 * (fs - 1.0)
    else:
        x = ((coord + 1.0) * fs - 1.0) * 0.5
    if PAD == 2:
        if ALIGN:
            x = _reflect(x, 0.0, 2.0 * (fs - 1.0))
        else:
            x = _reflect(x, -1.0, 2.0 * fs - 1.0)
    if PAD >= 1:
        x = tl.minimum(tl.maximum(x, 0.0), fs - 1.0)
    return x


@triton.jit
def _linspace(i, steps):
    # torch.linspace(-1, 1, steps)[i] in float32, as ATen's kernel forms it.
    step = 2.0 / (steps - 1).to(tl.float32)
    fi = i.to(tl.float32)
    back = (steps - 1 - i).to(tl.float32)
    return tl.where(i < steps // 2, -1.0 + step * fi, 1.0 - step * back)


@triton.jit
def _base(i, steps, ALIGN: tl.constexpr):
    if ALIGN:
        v = _linspace(i, steps)
    else:
        v = (_linspace(i, steps) * (steps - 1).to(tl.float32)) / steps.to(tl.float32)
    return tl.where(steps > 1, v, 0.0)


@triton.jit
def _affine_sample_kernel(x_ptr, t_ptr, y_ptr, total, C, H, W, HO, WO, sxn, sxc, sxh, sxw,
                          stn, str_, stc, syn, syc, syh, syw, PAD: tl.constexpr,
                          ALIGN: tl.constexpr, NEAREST: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    pmask = p < total
    ow = (p % WO).to(tl.int32)
    t = p // WO
    oh = (t % HO).to(tl.int32)
    n = t // HO
    tp = t_ptr + n * stn
    t00 = tl.load(tp, mask=pmask, other=0).to(tl.float32)
    t01 = tl.load(tp + stc, mask=pmask, other=0).to(tl.float32)
    t02 = tl.load(tp + 2 * stc, mask=pmask, other=0).to(tl.float32)
    t10 = tl.load(tp + str_, mask=pmask, other=0).to(tl.float32)
    t11 = tl.load(tp + str_ + stc, mask=pmask, other=0).to(tl.float32)
    t12 = tl.load(tp + str_ + 2 * stc, mask=pmask, other=0).to(tl.float32)
    bx = _base(ow, WO, ALIGN)
    by = _base(oh, HO, ALIGN)
    gx = bx * t00 + by * t01 + t02
    gy = bx * t10 + by * t11 + t12
    ix = _source(gx, W, PAD, ALIGN)
    iy = _source(gy, H, PAD, ALIGN)
    xb = x_ptr + n * sxn
    yb = y_ptr + n * syn + oh.to(tl.int64) * syh + ow.to(tl.int64) * syw
    if NEAREST:
        jx = _rne(ix).to(tl.int32)
        jy = _rne(iy).to(tl.int32)
        m = pmask & (jx >= 0) & (jx < W) & (jy >= 0) & (jy < H)
        off = jy.to(tl.int64) * sxh + jx.to(tl.int64) * sxw
        for c in range(0, C):
            v = tl.load(xb + c * sxc + off, mask=m, other=0.0)
            tl.store(yb + c * syc, v, mask=pmask)
    else:
        fx = tl.floor(ix)
        fy = tl.floor(iy)
        wx1 = ix - fx
        wx0 = 1.0 - wx1
        wy1 = iy - fy
        wy0 = 1.0 - wy1
        x0 = fx.to(tl.int32)
        y0 = fy.to(tl.int32)
        x1 = x0 + 1
        y1 = y0 + 1
        vx0 = (x0 >= 0) & (x0 < W)
        vx1 = (x1 >= 0) & (x1 < W)
        vy0 = (y0 >= 0) & (y0 < H)
        vy1 = (y1 >= 0) & (y1 < H)
        o00 = y0.to(tl.int64) * sxh + x0.to(tl.int64) * sxw
        for c in range(0, C):
            xc = xb + c * sxc
            v = tl.load(xc + o00, mask=pmask & vy0 & vx0, other=0.0).to(tl.float32) * (wy0 * wx0)
            v += tl.load(xc + o00 + sxw, mask=pmask & vy0 & vx1, other=0.0).to(tl.float32) * (wy0 * wx1)
            v += tl.load(xc + o00 + sxh, mask=pmask & vy1 & vx0, other=0.0).to(tl.float32) * (wy1 * wx0)
            v += tl.load(xc + o00 + sxh + sxw, mask=pmask & vy1 & vx1, other=0.0).to(tl.float32) * (wy1 * wx1)
            tl.store(yb + c * syc, v.to(y_ptr.dtype.element_ty), mask=pmask)


def grid_sample_with_affine(input, theta, size, mode='bilinear', padding_mode='zeros', align_corners=False):
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample_with_affine: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in _PADDING:
        raise ValueError(f"grid_sample_with_affine: padding_mode must be one of {tuple(_PADDING)}, got {padding_mode!r}")
    size = [int(s) for s in size]
    if len(size) != 4 or input.dim() != 4:
        raise NotImplementedError("grid_sample_with_affine: 4-D input and size only")
    N, C, HO, WO = size
    if tuple(theta.shape) != (N, 2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {list(theta.shape)}.")
    NI, CI, H, W = input.shape
    y = torch.empty((NI, CI, HO, WO), dtype=input.dtype, device=input.device)
    total = NI * HO * WO
    if total and CI:
        th = theta.to(input.dtype) if theta.is_floating_point() and theta.dtype != input.dtype else theta
        BLOCK = 256
        _affine_sample_kernel[(triton.cdiv(total, BLOCK),)](
            input, th, y, total, CI, H, W, HO, WO, *input.stride(), *th.stride(), *y.stride(),
            PAD=_PADDING[padding_mode], ALIGN=bool(align_corners), NEAREST=mode == "nearest",
            BLOCK=BLOCK, num_warps=4)
    return y
