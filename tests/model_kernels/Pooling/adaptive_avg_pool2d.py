"""Pooling/adaptive_avg_pool2d.py: one program per (plane, output cell block); the window bounds
are computed in the kernel (floor / ceil of i * H / Ho) and the window is summed with a loop bounded
by the largest window (MAX_KH x MAX_KW constexprs).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _adaptive_avg_kernel(x_ptr, y_ptr, H, W, Ho, Wo, MAX_KH: tl.constexpr, MAX_KW: tl.constexpr,
                         BLOCK_SIZE: tl.constexpr):
    plane = tl.program_id(0)
    pid = tl.program_id(1)
    cell = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    cm = cell < Ho * Wo
    i = cell // Wo
    j = cell % Wo
    h0 = (i * H) // Ho
    h1 = ((i + 1) * H + Ho - 1) // Ho
    w0 = (j * W) // Wo
    w1 = ((j + 1) * W + Wo - 1) // Wo
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    base = x_ptr + plane.to(tl.int64) * H * W
    for dh in tl.static_range(MAX_KH):
        for dw in tl.static_range(MAX_KW):
            h = h0 + dh
            w = w0 + dw
            m = cm & (h < h1) & (w < w1)
            acc += tl.load(base + h * W + w, mask=m, other=0.0)
    cnt = ((h1 - h0) * (w1 - w0)).to(tl.float32)
    tl.store(y_ptr + plane.to(tl.int64) * Ho * Wo + cell, acc / cnt, mask=cm)


def adaptive_avg_pool2d(input, output_size):
    x = input
    unbatched = x.dim() == 3
    if unbatched:
        x = x.unsqueeze(0)
    N, C, H, W = x.shape
    if isinstance(output_size, int):
        Ho, Wo = output_size, output_size
    else:
        Ho, Wo = output_size
        Ho = H if Ho is None else Ho
        Wo = W if Wo is None else Wo
    x = x.contiguous()
    y = torch.empty((N, C, Ho, Wo), dtype=x.dtype, device=x.device)
    max_kh = max(((i + 1) * H + Ho - 1) // Ho - (i * H) // Ho for i in range(Ho))
    max_kw = max(((j + 1) * W + Wo - 1) // Wo - (j * W) // Wo for j in range(Wo))
    BLOCK_SIZE = 64
    grid = (N * C, triton.cdiv(Ho * Wo, BLOCK_SIZE))
    _adaptive_avg_kernel[grid](x, y, H, W, Ho, Wo, MAX_KH=max_kh, MAX_KW=max_kw, BLOCK_SIZE=BLOCK_SIZE)
    return y.squeeze(0) if unbatched else y
