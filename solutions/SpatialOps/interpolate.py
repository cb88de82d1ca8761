"""SpatialOps/interpolate.py: F.interpolate (nearest, linear, bilinear, bicubic, area; 3-D and 4-D
inputs; size or scale_factor; align_corners) as one gather kernel per call.

Design: a flat 1-D grid over the output (BLOCK = 1024 elements, 4 warps); each output element
decodes (plane, i, j), forms its source coordinates in float32 exactly as ATen does
(area_pixel_compute_scale / compute_source_index: the scale is 1 / scale_factor when a scale
factor is given, else in / out, or (in - 1) / (out - 1) with align_corners; nearest uses
floor(dst * scale) clamped to the last pixel) and gathers its taps through the input's strides
(no .contiguous()): 1 tap for nearest, 2 x 2 for (bi)linear (the second tap clamped to the edge
as ATen's h1p / w1p), 4 x 4 for bicubic (A = -0.75, indices clamped to the border), and the
integer adaptive windows (start = i * H // Ho, end = ceil((i + 1) * H / Ho)) for area, as
adaptive_avg_pool2d does. A 3-D input (N, C, W) is the 4-D case with H = H_out = 1. float32
math, one write per output element. In the perf sweep (bilinear 2x upsampling of 2 x 3 x S x S)
the input is read about once through L1/L2 and the output written once, as eager does, in one
launch.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(in_size, out_size, scale, HAS_SCALE: tl.constexpr, ALIGN: tl.constexpr):
    if ALIGN:
        return tl.where(out_size > 1, (in_size - 1).to(tl.float32) / (out_size - 1).to(tl.float32),
                        0.0)
    elif HAS_SCALE:
        return scale
    else:
        return in_size.to(tl.float32) / out_size.to(tl.float32)


@triton.jit
def _source(scale, dst, ALIGN: tl.constexpr, CUBIC: tl.constexpr):
    d = dst.to(tl.float32)
    if ALIGN:
        return scale * d
    src = scale * (d + 0.5) - 0.5
    if CUBIC:
        return src
    return tl.maximum(src, 0.0)


@triton.jit
def _cc1(x):
    A: tl.constexpr = -0.75
    return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0


@triton.jit
def _cc2(x):
    A: tl.constexpr = -0.75
    return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A


# H, W, HO, WO are never specialised: Triton turns an int argument equal to 1 into a constexpr
# (a 1-D input has H = HO = 1), and _scale's `in_size.to(...)` has no meaning on a constexpr.
@triton.jit(do_not_specialize=["H", "W", "HO", "WO"])
def _interp_kernel(x_ptr, y_ptr, total, C, H, W, HO, WO, sxn, sxc, sxh, sxw, scale_h, scale_w,
                   MODE: tl.constexpr, HAS_SCALE: tl.constexpr, ALIGN: tl.constexpr, KH, KW,
                   KWP: tl.constexpr, BLOCK: tl.constexpr, I64: tl.constexpr):
    # 32-bit index math unless an offset can pass 2**31 (64-bit divisions cost tens of
    # instructions each, and every output element decodes its (plane, i, j)).
    if I64:
        o = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    omask = o < total
    j = (o % WO).to(tl.int32)
    t = o // WO
    i = (t % HO).to(tl.int32)
    plane = t // HO
    base = x_ptr + (plane // C) * sxn + (plane % C) * sxc
    if MODE == 0:  # nearest
        sh = _scale(H, HO, scale_h, HAS_SCALE, False)
        sw = _scale(W, WO, scale_w, HAS_SCALE, False)
        hi = tl.minimum(tl.floor(i.to(tl.float32) * sh).to(tl.int32), H - 1)
        wi = tl.minimum(tl.floor(j.to(tl.float32) * sw).to(tl.int32), W - 1)
        v = tl.load(base + hi.to(tl.int64) * sxh + wi.to(tl.int64) * sxw, mask=omask, other=0.0)
        y = v.to(tl.float32)
    elif MODE == 1:  # (bi)linear
        sh = _scale(H, HO, scale_h, HAS_SCALE, ALIGN)
        sw = _scale(W, WO, scale_w, HAS_SCALE, ALIGN)
        hs = _source(sh, i, ALIGN, False)
        ws = _source(sw, j, ALIGN, False)
        h0 = hs.to(tl.int32)
        w0 = ws.to(tl.int32)
        hp = tl.where(h0 < H - 1, 1, 0)
        wp = tl.where(w0 < W - 1, 1, 0)
        lh = hs - h0.to(tl.float32)
        lw = ws - w0.to(tl.float32)
        p00 = base + h0.to(tl.int64) * sxh + w0.to(tl.int64) * sxw
        v00 = tl.load(p00, mask=omask, other=0.0).to(tl.float32)
        v01 = tl.load(p00 + wp * sxw, mask=omask, other=0.0).to(tl.float32)
        v10 = tl.load(p00 + hp * sxh, mask=omask, other=0.0).to(tl.float32)
        v11 = tl.load(p00 + hp * sxh + wp * sxw, mask=omask, other=0.0).to(tl.float32)
        y = (1.0 - lh) * ((1.0 - lw) * v00 + lw * v01) + lh * ((1.0 - lw) * v10 + lw * v11)
    elif MODE == 2:  # bicubic
        sh = _scale(H, HO, scale_h, HAS_SCALE, ALIGN)
        sw = _scale(W, WO, scale_w, HAS_SCALE, ALIGN)
        hs = _source(sh, i, ALIGN, True)
        ws = _source(sw, j, ALIGN, True)
        hf = tl.floor(hs)
        wf = tl.floor(ws)
        th = hs - hf
        tw = ws - wf
        h0 = hf.to(tl.int32)
        w0 = wf.to(tl.int32)
        y = tl.zeros([BLOCK], tl.float32)
        for a in tl.static_range(4):
            if a == 0:
                ch = _cc2(th + 1.0)
            elif a == 1:
                ch = _cc1(th)
            elif a == 2:
                ch = _cc1(1.0 - th)
            else:
                ch = _cc2(2.0 - th)
            hh = tl.minimum(tl.maximum(h0 - 1 + a, 0), H - 1)
            row = tl.zeros([BLOCK], tl.float32)
            for b in tl.static_range(4):
                if b == 0:
                    cw = _cc2(tw + 1.0)
                elif b == 1:
                    cw = _cc1(tw)
                elif b == 2:
                    cw = _cc1(1.0 - tw)
                else:
                    cw = _cc2(2.0 - tw)
                ww = tl.minimum(tl.maximum(w0 - 1 + b, 0), W - 1)
                v = tl.load(base + hh.to(tl.int64) * sxh + ww.to(tl.int64) * sxw, mask=omask,
                            other=0.0)
                row += v.to(tl.float32) * cw
            y += row * ch
    else:  # area: adaptive average windows
        h0 = (i * H) // HO
        h1 = ((i + 1) * H + HO - 1) // HO
        w0 = (j * W) // WO
        w1 = ((j + 1) * W + WO - 1) // WO
        taps = tl.arange(0, KWP)
        wpos = w0[:, None] + taps[None, :]
        wmask = omask[:, None] & (wpos < w1[:, None])
        # Taps accumulate as a tile, summed once after the loop (a tl.sum inside the loop meets
        # Triton's thread-locality rewrite, which mixed outputs on the H200 in
        # Pooling/adaptive_avg_pool2d for a strided input).
        acc2 = tl.zeros([BLOCK, KWP], tl.float32)
        for dh in range(0, KH):
            h = h0 + dh
            m = wmask & (h < h1)[:, None]
            ptr = base[:, None] + h.to(tl.int64)[:, None] * sxh + wpos.to(tl.int64) * sxw
            acc2 += tl.load(ptr, mask=m, other=0.0).to(tl.float32)
        y = tl.sum(acc2, axis=1) / ((h1 - h0) * (w1 - w0)).to(tl.float32)
    tl.store(y_ptr + o, y.to(y_ptr.dtype.element_ty), mask=omask)


_MODES = {"nearest": 0, "linear": 1, "bilinear": 1, "bicubic": 2, "area": 3}


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported")
    nsp = input.dim() - 2
    if nsp not in (1, 2):
        raise NotImplementedError("interpolate: 3-D (N, C, W) and 4-D (N, C, H, W) inputs only")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if align_corners is not None and mode in ("nearest", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = [int(s) for s in (size if isinstance(size, (tuple, list)) else [size] * nsp)]
        scales = [None] * nsp
    else:
        sf = list(scale_factor) if isinstance(scale_factor, (tuple, list)) else [scale_factor] * nsp
        out_sizes = [int(math.floor(float(s) * f)) for s, f in zip(in_sizes, sf)]
        scales = [1.0 / float(f) for f in sf]
    if mode == "area":
        scales = [None] * nsp
    x = input if nsp == 2 else input.unsqueeze(2)
    N, C, H, W = x.shape
    HO, WO = (out_sizes if nsp == 2 else [1] + out_sizes)
    sh, sw = (scales if nsp == 2 else [None] + scales)
    y = torch.empty((N, C, HO, WO), dtype=input.dtype, device=input.device)
    total = y.numel()
    if total:
        has_scale = sw is not None
        KH = triton.cdiv(H, HO) + (1 if H % HO else 0)
        KW = triton.cdiv(W, WO) + (1 if W % WO else 0)
        KWP = triton.next_power_of_2(KW) if mode == "area" else 1
        BLOCK = max(32, min(1024, 4096 // KWP))
        span = sum(abs(st) * (d - 1) for st, d in zip(x.stride(), x.shape)) + 1
        i64 = max(total, span) + BLOCK >= 2**31
        _interp_kernel[(triton.cdiv(total, BLOCK),)](
            x, y, total, C, H, W, HO, WO, *x.stride(), float(sh if sh is not None else 1.0),
            float(sw if sw is not None else 1.0), MODE=_MODES[mode], HAS_SCALE=has_scale,
            ALIGN=bool(align_corners), KH=KH, KW=KW, KWP=KWP, BLOCK=BLOCK, I64=i64, num_warps=4)
    return y if nsp == 2 else y.squeeze(2)
