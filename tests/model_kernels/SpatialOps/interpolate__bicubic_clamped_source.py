"""SpatialOps/interpolate.py variant: bicubic clamps the source coordinate at 0 like
bilinear (src = max((dst + 0.5) s - 0.5, 0)), which is what the task description's single
"clamped below at 0" rule literally says, but torch's upsample_bicubic2d does not clamp it
(area_pixel_compute_source_index with cubic=true): for 8 -> 16 the first output column samples
at -0.25 in torch and at 0 here. The description also says "as torch.nn.functional.interpolate",
and the reference is torch, so a careful judge fails it, but the description should say that the
clamp applies to the linear modes only.

Otherwise the kernel is SpatialOps/interpolate.py: one Triton kernel for all modes; a 3-D (N, C, W) input runs as
(N, C, 1, W) with an output height of 1 (its row coordinate is then exactly 0). Each program
handles BLOCK elements of the flattened (N, C, H_out, W_out) output. The per-axis coordinate
scale is computed on the host as torch does: (in - 1) / (out - 1) for align_corners, 1 /
scale_factor when scale_factor is given, else in / out. 'nearest': min(floor(dst * s), in - 1);
'linear'/'bilinear': src = (dst + 0.5) s - 0.5 clamped at 0 (dst * s with align_corners), the
right neighbour clamped to in - 1; 'bicubic': the same source index but NOT clamped at 0 (as
torch's upsample_bicubic2d), 4 x 4 taps with the a = -0.75 cubic-convolution weights and indices
clamped to the border; 'area': the mean over [floor(i in / out), ceil((i + 1) in / out)) per
axis (adaptive average pooling). float32 throughout, input read through its strides.
"""
# expect: incorrect
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _cc1(x, A: tl.constexpr):
    return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0


@triton.jit
def _cc2(x, A: tl.constexpr):
    return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A


@triton.jit
def _load(x_ptr, base, yi, xi, H, W, sh, sw, mask):
    yi = tl.minimum(tl.maximum(yi, 0), H - 1)
    xi = tl.minimum(tl.maximum(xi, 0), W - 1)
    return tl.load(x_ptr + base + yi * sh + xi * sw, mask=mask, other=0.0)


@triton.jit
def _cubic_row(x_ptr, base, yi, x0, H, W, sh, sw, w0, w1, w2, w3, mask):
    v = _load(x_ptr, base, yi, x0 - 1, H, W, sh, sw, mask) * w0
    v += _load(x_ptr, base, yi, x0, H, W, sh, sw, mask) * w1
    v += _load(x_ptr, base, yi, x0 + 1, H, W, sh, sw, mask) * w2
    v += _load(x_ptr, base, yi, x0 + 2, H, W, sh, sw, mask) * w3
    return v


@triton.jit
def _interp_kernel(x_ptr, y_ptr, total, C, H, W, Ho, Wo, sn, sc, sh, sw, scale_h, scale_w,
                   KH, KW, MODE: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    ox = offs % Wo
    t = offs // Wo
    oy = t % Ho
    t = t // Ho
    c = t % C
    n = t // C
    base = n * sn + c * sc
    oxf = ox.to(tl.float32)
    oyf = oy.to(tl.float32)
    if MODE == 0:
        yi = tl.minimum(tl.floor(oyf * scale_h).to(tl.int64), H - 1)
        xi = tl.minimum(tl.floor(oxf * scale_w).to(tl.int64), W - 1)
        acc = _load(x_ptr, base, yi, xi, H, W, sh, sw, mask)
    elif MODE == 1:
        if ALIGN:
            sy = oyf * scale_h
            sx = oxf * scale_w
        else:
            sy = tl.maximum((oyf + 0.5) * scale_h - 0.5, 0.0)
            sx = tl.maximum((oxf + 0.5) * scale_w - 0.5, 0.0)
        y0 = sy.to(tl.int64)
        x0 = sx.to(tl.int64)
        ly = sy - y0.to(tl.float32)
        lx = sx - x0.to(tl.float32)
        y1 = tl.minimum(y0 + 1, H - 1)
        x1 = tl.minimum(x0 + 1, W - 1)
        v00 = _load(x_ptr, base, y0, x0, H, W, sh, sw, mask)
        v01 = _load(x_ptr, base, y0, x1, H, W, sh, sw, mask)
        v10 = _load(x_ptr, base, y1, x0, H, W, sh, sw, mask)
        v11 = _load(x_ptr, base, y1, x1, H, W, sh, sw, mask)
        acc = (1.0 - ly) * ((1.0 - lx) * v00 + lx * v01) + ly * ((1.0 - lx) * v10 + lx * v11)
    elif MODE == 2:
        if ALIGN:
            sy = oyf * scale_h
            sx = oxf * scale_w
        else:
            sy = tl.maximum((oyf + 0.5) * scale_h - 0.5, 0.0)
            sx = tl.maximum((oxf + 0.5) * scale_w - 0.5, 0.0)
        fy = tl.floor(sy)
        fx = tl.floor(sx)
        ty = sy - fy
        tx = sx - fx
        y0 = fy.to(tl.int64)
        x0 = fx.to(tl.int64)
        A: tl.constexpr = -0.75
        wx0 = _cc2(tx + 1.0, A)
        wx1 = _cc1(tx, A)
        wx2 = _cc1(1.0 - tx, A)
        wx3 = _cc2(2.0 - tx, A)
        wy0 = _cc2(ty + 1.0, A)
        wy1 = _cc1(ty, A)
        wy2 = _cc1(1.0 - ty, A)
        wy3 = _cc2(2.0 - ty, A)
        acc = wy0 * _cubic_row(x_ptr, base, y0 - 1, x0, H, W, sh, sw, wx0, wx1, wx2, wx3, mask)
        acc += wy1 * _cubic_row(x_ptr, base, y0, x0, H, W, sh, sw, wx0, wx1, wx2, wx3, mask)
        acc += wy2 * _cubic_row(x_ptr, base, y0 + 1, x0, H, W, sh, sw, wx0, wx1, wx2, wx3, mask)
        acc += wy3 * _cubic_row(x_ptr, base, y0 + 2, x0, H, W, sh, sw, wx0, wx1, wx2, wx3, mask)
    else:
        hs = (oy * H) // Ho
        he = ((oy + 1) * H + Ho - 1) // Ho
        ws = (ox * W) // Wo
        we = ((ox + 1) * W + Wo - 1) // Wo
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for dy in range(0, KH):
            for dx in range(0, KW):
                yy = hs + dy
                xx = ws + dx
                ok = mask & (yy < he) & (xx < we)
                acc += tl.load(x_ptr + base + yy * sh + xx * sw, mask=ok, other=0.0)
        acc = acc / ((he - hs) * (we - ws)).to(tl.float32)
    tl.store(y_ptr + offs, acc, mask=mask)


def _out_sizes(in_sizes, size, scale_factor):
    nd = len(in_sizes)
    if size is not None:
        out = [int(size)] * nd if isinstance(size, int) else [int(s) for s in size]
        return out, [None] * nd
    sf = [float(scale_factor)] * nd if not isinstance(scale_factor, (tuple, list)) else [
        float(s) for s in scale_factor]
    return [int(math.floor(i * s)) for i, s in zip(in_sizes, sf)], sf


def _scale(inp, out, sf, mode, align):
    if align and mode in ("linear", "bilinear", "bicubic"):
        return (inp - 1) / (out - 1) if out > 1 else 0.0
    if sf is not None and sf > 0:
        return 1.0 / sf
    return inp / out


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    modes = {"nearest": 0, "linear": 1, "bilinear": 1, "bicubic": 2, "area": 3}
    if mode not in modes:
        raise ValueError(f"interpolate: unsupported mode {mode!r}")
    x = input.float()
    one_d = x.dim() == 3
    if one_d:
        x = x.unsqueeze(2)
    in_sizes = list(input.shape[2:])
    out_sizes, sfs = _out_sizes(in_sizes, size, scale_factor)
    if one_d:
        in_sizes, out_sizes, sfs = [1] + in_sizes, [1] + out_sizes, [None] + sfs
    N, C, H, W = x.shape
    Ho, Wo = out_sizes
    align = bool(align_corners)
    scale_h = _scale(H, Ho, sfs[0], mode, align)
    scale_w = _scale(W, Wo, sfs[1], mode, align)
    y = torch.empty((N, C, Ho, Wo), dtype=torch.float32, device=x.device)
    total = y.numel()
    if total > 0:
        KH = -(-H // Ho) + 1
        KW = -(-W // Wo) + 1
        sn, sc, sh, sw = x.stride()
        BLOCK = 256
        _interp_kernel[(triton.cdiv(total, BLOCK),)](
            x, y, total, C, H, W, Ho, Wo, sn, sc, sh, sw, scale_h, scale_w, KH, KW,
            MODE=modes[mode], ALIGN=align, BLOCK=BLOCK)
    if one_d:
        y = y.squeeze(2)
    return y
