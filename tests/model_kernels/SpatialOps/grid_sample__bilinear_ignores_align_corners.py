"""SpatialOps/grid_sample.py variant: the bilinear/trilinear path ignores align_corners and
always unnormalises with the align_corners=False map ((g + 1) * size - 1) / 2 (and reflects at
the edges accordingly); the nearest path honours it. With align_corners=True torch maps -1/1 to
the corner pixel centres, (g + 1) / 2 * (size - 1), so every bilinear sample point moves by up
to half a pixel and a careful judge fails it. The only public align_corners=True call is in nearest
mode (volume_nearest_align_corners_1x3x4x4x4); kbx's own bilinear_align_corners_1x3x5x6
(kbx_only) catches it.

Otherwise the kernel is SpatialOps/grid_sample.py: one Triton kernel for both the 4-D and 5-D cases (a 4-D call runs
as a volume of depth 1 whose z coordinate is 0, which unnormalises to exactly 0 and gets
interpolation weight exactly 1). Each program handles BLOCK output elements of the flattened
(N, C, D_out, H_out, W_out) output: it loads the (x, y, z) grid point, unnormalises it
(align_corners: (g + 1) / 2 * (size - 1), else ((g + 1) * size - 1) / 2), applies border
clamping or reflection (torch's reflect_coordinates at [0, size-1] for align_corners, at
[-0.5, size-0.5] otherwise, then clamped), and samples: trilinear over the 8 neighbours, each
read only when in bounds (zeros padding), or nearest with round-half-to-even. All in float32.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases catch it)
# expect-kernelbenchx-cuda: compile_error  (a 4-D call's D = 1 is specialised to an int on a GPU: D.to does not compile, on the public calls too)
import torch
import triton
import triton.language as tl


@triton.jit
def _unnormalize(g, size, ALIGN: tl.constexpr):
    if ALIGN:
        return (g + 1.0) / 2.0 * (size - 1)
    else:
        return ((g + 1.0) * size - 1.0) / 2.0


@triton.jit
def _reflect(c, twice_low, twice_high):
    mn = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    safe_span = tl.where(span > 0, span, 1.0)
    a = tl.abs(c - mn)
    extra = a - tl.floor(a / safe_span) * safe_span
    flips = tl.floor(a / safe_span)
    odd = (flips - 2.0 * tl.floor(flips / 2.0)) != 0
    r = tl.where(odd, span - extra + mn, extra + mn)
    return tl.where(span > 0, r, 0.0)


@triton.jit
def _pad_coord(c, size, PAD: tl.constexpr, ALIGN: tl.constexpr):
    # PAD: 0 zeros, 1 border, 2 reflection
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
def _tap(x_ptr, base, zi, yi, xi, D, H, W, wgt, mask):
    ok = mask & (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H) & (zi >= 0) & (zi < D)
    off = base + (zi.to(tl.int64) * H + yi) * W + xi
    v = tl.load(x_ptr + off, mask=ok, other=0.0)
    return tl.where(ok, v * wgt, 0.0)


@triton.jit
def _grid_sample_kernel(x_ptr, g_ptr, y_ptr, total, C, D, H, W, Do, Ho, Wo,
                        MODE: tl.constexpr, PAD: tl.constexpr, ALIGN: tl.constexpr,
                        BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    ow = offs % Wo
    t = offs // Wo
    oh = t % Ho
    t = t // Ho
    od = t % Do
    t = t // Do
    c = t % C
    n = t // C
    gbase = (((n * Do + od) * Ho + oh) * Wo + ow) * 3
    gx = tl.load(g_ptr + gbase, mask=mask, other=0.0)
    gy = tl.load(g_ptr + gbase + 1, mask=mask, other=0.0)
    gz = tl.load(g_ptr + gbase + 2, mask=mask, other=0.0)
    Wf = W.to(tl.float32)
    Hf = H.to(tl.float32)
    Df = D.to(tl.float32)
    UA: tl.constexpr = ALIGN and MODE == 1
    ix = _pad_coord(_unnormalize(gx, Wf, UA), Wf, PAD, UA)
    iy = _pad_coord(_unnormalize(gy, Hf, UA), Hf, PAD, UA)
    iz = _pad_coord(_unnormalize(gz, Df, UA), Df, PAD, UA)
    base = (n * C + c) * D * H * W
    if MODE == 0:
        x0f = tl.floor(ix)
        y0f = tl.floor(iy)
        z0f = tl.floor(iz)
        x0 = x0f.to(tl.int64)
        y0 = y0f.to(tl.int64)
        z0 = z0f.to(tl.int64)
        tx = ix - x0f
        ty = iy - y0f
        tz = iz - z0f
        acc = _tap(x_ptr, base, z0, y0, x0, D, H, W, (1 - tx) * (1 - ty) * (1 - tz), mask)
        acc += _tap(x_ptr, base, z0, y0, x0 + 1, D, H, W, tx * (1 - ty) * (1 - tz), mask)
        acc += _tap(x_ptr, base, z0, y0 + 1, x0, D, H, W, (1 - tx) * ty * (1 - tz), mask)
        acc += _tap(x_ptr, base, z0, y0 + 1, x0 + 1, D, H, W, tx * ty * (1 - tz), mask)
        acc += _tap(x_ptr, base, z0 + 1, y0, x0, D, H, W, (1 - tx) * (1 - ty) * tz, mask)
        acc += _tap(x_ptr, base, z0 + 1, y0, x0 + 1, D, H, W, tx * (1 - ty) * tz, mask)
        acc += _tap(x_ptr, base, z0 + 1, y0 + 1, x0, D, H, W, (1 - tx) * ty * tz, mask)
        acc += _tap(x_ptr, base, z0 + 1, y0 + 1, x0 + 1, D, H, W, tx * ty * tz, mask)
    else:
        xn = _rint(ix).to(tl.int64)
        yn = _rint(iy).to(tl.int64)
        zn = _rint(iz).to(tl.int64)
        acc = _tap(x_ptr, base, zn, yn, xn, D, H, W, 1.0, mask)
    tl.store(y_ptr + offs, acc, mask=mask)


def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False):
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: unsupported mode {mode!r}")
    pads = {"zeros": 0, "border": 1, "reflection": 2}
    if padding_mode not in pads:
        raise ValueError(f"grid_sample: unsupported padding_mode {padding_mode!r}")
    is3d = input.dim() == 5
    x = input.contiguous().float()
    g = grid.contiguous().float()
    if not is3d:
        x = x.unsqueeze(2)
        g = torch.cat([g, torch.zeros_like(g[..., :1])], dim=-1).unsqueeze(1)
    g = g.contiguous()
    N, C, D, H, W = x.shape
    _, Do, Ho, Wo, _ = g.shape
    y = torch.empty((N, C, Do, Ho, Wo), dtype=torch.float32, device=x.device)
    total = y.numel()
    if total > 0:
        BLOCK = 256
        _grid_sample_kernel[(triton.cdiv(total, BLOCK),)](
            x, g, y, total, C, D, H, W, Do, Ho, Wo, MODE=0 if mode == "bilinear" else 1,
            PAD=pads[padding_mode], ALIGN=bool(align_corners), BLOCK=BLOCK)
    if not is3d:
        y = y.squeeze(2)
    return y.to(input.dtype)
