"""SpatialOps/grid_sample_with_affine.py variant: the base grid is always
linspace(-1, 1, size), i.e. x = 2 j / (W_out - 1) - 1, the align_corners=True grid, even when
align_corners is False, where affine_grid uses pixel centres x = (2 j + 1) / W_out - 1. The
sampling side honours align_corners. Every point moves by up to half a pixel (scaled by theta),
so the default align_corners=False cases must fail.

Otherwise the kernel is SpatialOps/grid_sample_with_affine.py: one Triton kernel fuses affine_grid and grid_sample.
Each program handles BLOCK elements of the flattened (N, C, H_out, W_out) output: it forms the
base coordinates (x = (2 j + 1) / W_out - 1, y = (2 i + 1) / H_out - 1, or 2 j / (W_out - 1) - 1
with align_corners), applies theta[n] (converted to float32 on the host), unnormalises to input
pixels, applies border clamping or reflection (torch's reflect_coordinates), and samples
bilinearly (4 taps, each read only when in bounds for zeros padding) or nearest with
round-half-to-even. float32 throughout; the input is read through its own strides.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _reflect(c, twice_low, twice_high):
    mn = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    safe_span = tl.where(span > 0, span, 1.0)
    a = tl.abs(c - mn)
    flips = tl.floor(a / safe_span)
    extra = a - flips * safe_span
    odd = (flips - 2.0 * tl.floor(flips / 2.0)) != 0
    r = tl.where(odd, span - extra + mn, extra + mn)
    return tl.where(span > 0, r, 0.0)


@triton.jit
def _source(g, size, PAD: tl.constexpr, ALIGN: tl.constexpr):
    if ALIGN:
        c = (g + 1.0) / 2.0 * (size - 1.0)
    else:
        c = ((g + 1.0) * size - 1.0) / 2.0
    if PAD == 1:
        c = tl.minimum(tl.maximum(c, 0.0), size - 1.0)
    elif PAD == 2:
        if ALIGN:
            c = _reflect(c, 0.0, 2.0 * (size - 1.0))
        else:
            c = _reflect(c, -1.0, 2.0 * size - 1.0)
        c = tl.minimum(tl.maximum(c, 0.0), size - 1.0)
    return c


@triton.jit
def _rint(x):
    r = tl.floor(x + 0.5)
    tie = (r - x) == 0.5
    odd = (r - 2.0 * tl.floor(r / 2.0)) != 0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def _tap(x_ptr, base, yi, xi, H, W, sh, sw, wgt, mask):
    ok = mask & (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    v = tl.load(x_ptr + base + yi * sh + xi * sw, mask=ok, other=0.0)
    return tl.where(ok, v * wgt, 0.0)


@triton.jit
def _affine_sample_kernel(x_ptr, th_ptr, y_ptr, total, C, H, W, Ho, Wo, sn, sc, sh, sw,
                          MODE: tl.constexpr, PAD: tl.constexpr, ALIGN: tl.constexpr,
                          BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    j = offs % Wo
    t = offs // Wo
    i = t % Ho
    t = t // Ho
    c = t % C
    n = t // C
    jf = j.to(tl.float32)
    i_f = i.to(tl.float32)
    Wof = Wo.to(tl.float32)
    Hof = Ho.to(tl.float32)
    bx = tl.where(Wo > 1, 2.0 * jf / tl.maximum(Wof - 1.0, 1.0) - 1.0, 0.0)
    by = tl.where(Ho > 1, 2.0 * i_f / tl.maximum(Hof - 1.0, 1.0) - 1.0, 0.0)
    tb = th_ptr + n * 6
    t00 = tl.load(tb + 0, mask=mask, other=0.0)
    t01 = tl.load(tb + 1, mask=mask, other=0.0)
    t02 = tl.load(tb + 2, mask=mask, other=0.0)
    t10 = tl.load(tb + 3, mask=mask, other=0.0)
    t11 = tl.load(tb + 4, mask=mask, other=0.0)
    t12 = tl.load(tb + 5, mask=mask, other=0.0)
    gx = t00 * bx + t01 * by + t02
    gy = t10 * bx + t11 * by + t12
    Wf = W.to(tl.float32)
    Hf = H.to(tl.float32)
    ix = _source(gx, Wf, PAD, ALIGN)
    iy = _source(gy, Hf, PAD, ALIGN)
    base = n * sn + c * sc
    if MODE == 0:
        x0f = tl.floor(ix)
        y0f = tl.floor(iy)
        x0 = x0f.to(tl.int64)
        y0 = y0f.to(tl.int64)
        tx = ix - x0f
        ty = iy - y0f
        acc = _tap(x_ptr, base, y0, x0, H, W, sh, sw, (1 - tx) * (1 - ty), mask)
        acc += _tap(x_ptr, base, y0, x0 + 1, H, W, sh, sw, tx * (1 - ty), mask)
        acc += _tap(x_ptr, base, y0 + 1, x0, H, W, sh, sw, (1 - tx) * ty, mask)
        acc += _tap(x_ptr, base, y0 + 1, x0 + 1, H, W, sh, sw, tx * ty, mask)
    else:
        acc = _tap(x_ptr, base, _rint(iy).to(tl.int64), _rint(ix).to(tl.int64), H, W, sh, sw,
                   1.0, mask)
    tl.store(y_ptr + offs, acc, mask=mask)


def grid_sample_with_affine(input, theta, size, mode='bilinear', padding_mode='zeros',
                            align_corners=False):
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"unsupported mode {mode!r}")
    pads = {"zeros": 0, "border": 1, "reflection": 2}
    if padding_mode not in pads:
        raise ValueError(f"unsupported padding_mode {padding_mode!r}")
    x = input
    th = theta.to(x.dtype).to(torch.float32).contiguous()
    N, C, Ho, Wo = [int(s) for s in size]
    _, _, H, W = x.shape
    y = torch.empty((N, C, Ho, Wo), dtype=torch.float32, device=x.device)
    total = y.numel()
    if total > 0:
        BLOCK = 256
        sn, sc, sh, sw = x.stride()
        _affine_sample_kernel[(triton.cdiv(total, BLOCK),)](
            x, th, y, total, C, H, W, Ho, Wo, sn, sc, sh, sw,
            MODE=0 if mode == "bilinear" else 1, PAD=pads[padding_mode],
            ALIGN=bool(align_corners), BLOCK=BLOCK)
    return y
