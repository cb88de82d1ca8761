"""Fusion/fused_avg_pool2d_cosine_similarity.py: kernel 1 computes the channel cosine map
(N, H, W) with dot / max(||x1|| * ||x2||, eps) (channels looped in a tl.arange block); kernel 2
average-pools it with zero padding counted in the divisor.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_kernel(a_ptr, b_ptr, c_ptr, C, HW, eps, BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr):
    n = tl.program_id(0)
    pid = tl.program_id(1)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P)
    ch = tl.arange(0, BLOCK_C)
    mask = (ch[:, None] < C) & (p[None, :] < HW)
    base = n * C * HW
    a = tl.load(a_ptr + base + ch[:, None] * HW + p[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + base + ch[:, None] * HW + p[None, :], mask=mask, other=0.0)
    dot = tl.sum(a * b, axis=0)
    na = tl.sqrt(tl.sum(a * a, axis=0))
    nb = tl.sqrt(tl.sum(b * b, axis=0))
    c = dot / tl.maximum(na * nb, eps)
    tl.store(c_ptr + n * HW + p, c, mask=p < HW)


@triton.jit
def _pool_kernel(c_ptr, y_ptr, H, W, Ho, Wo, KH: tl.constexpr, KW: tl.constexpr, SH, SW, PH, PW,
                 BLOCK: tl.constexpr):
    n = tl.program_id(0)
    pid = tl.program_id(1)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    om = o < Ho * Wo
    oh = o // Wo
    ow = o % Wo
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in range(KH):
        for kw in range(KW):
            ih = oh * SH - PH + kh
            iw = ow * SW - PW + kw
            m = om & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            acc += tl.load(c_ptr + n * H * W + ih * W + iw, mask=m, other=0.0)
    tl.store(y_ptr + n * Ho * Wo + o, acc / (KH * KW), mask=om)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def fused_avg_pool2d_cosine_similarity(x1, x2, kernel_size, stride=None, padding=0, eps=1e-08):
    x2 = x2.expand_as(x1)
    a = x1.contiguous()
    b = x2.contiguous()
    N, C, H, W = a.shape
    cmap = torch.empty((N, H, W), dtype=torch.float32, device=a.device)
    BP = 64
    _cos_kernel[(N, triton.cdiv(H * W, BP))](a, b, cmap, C, H * W, eps,
                                             BLOCK_C=triton.next_power_of_2(C), BLOCK_P=BP)
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride is not None else (kh, kw)
    ph, pw = _pair(padding)
    Ho = (H + 2 * ph - kh) // sh + 1
    Wo = (W + 2 * pw - kw) // sw + 1
    y = torch.empty((N, 1, Ho, Wo), dtype=torch.float32, device=a.device)
    B = 64
    _pool_kernel[(N, triton.cdiv(Ho * Wo, B))](cmap, y, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, BLOCK=B)
    return y
