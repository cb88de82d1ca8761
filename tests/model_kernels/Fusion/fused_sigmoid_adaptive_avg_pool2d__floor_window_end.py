"""Fusion/fused_sigmoid_adaptive_avg_pool2d.py variant that ends each window at floor((i+1)*H/oh)
(exclusive) instead of ceil((i+1)*H/oh): the windows tile the input without overlap. That is the
same when H and W are multiples of the output size, but for uneven sizes (11 rows into 4: torch's
windows are rows 0-2, 2-5, 5-8, 8-10; this gives 0-1, 2-4, 5-7, 8-10) every window but the last
misses a row or column, so the averages and the sigmoids differ and a careful judge fails it. The
public cases all divide evenly; only kbx's own uneven and 20x15-to-3 cases catch it.

Otherwise as the correct kernel: one Triton kernel over (plane = (n, c), block of
output cells): cell (i, j) averages the input window rows floor(i*H/oh) .. ceil((i+1)*H/oh) - 1 and
columns floor(j*W/ow) .. ceil((j+1)*W/ow) - 1 (integer arithmetic, overlapping and uneven windows
as torch) read through the input's strides, in float32, then stores 1 / (1 + exp(-avg)). The loops
run to the largest window size (host-computed) with masks. Unbatched [C, H, W] input is handled as
N = 1; output_size is an int or a pair (None entries keep the input size).
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _adaptive_avg_sigmoid_kernel(x_ptr, o_ptr, C, H, W, OH, OW, sn, sc, sh, sw, KH, KW,
                                 BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    cell = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    cm = cell < OH * OW
    i = cell // OW
    j = cell % OW
    h0 = (i * H) // OH
    h1 = ((i + 1) * H) // OH
    w0 = (j * W) // OW
    w1 = ((j + 1) * W) // OW
    nb = plane // C
    cb = plane % C
    base = x_ptr + nb * sn + cb * sc
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for dh in range(0, KH):
        hh = h0 + dh
        for dw in range(0, KW):
            ww = w0 + dw
            m = cm & (hh < h1) & (ww < w1)
            acc += tl.load(base + hh * sh + ww * sw, mask=m, other=0.0)
    cnt = ((h1 - h0) * (w1 - w0)).to(tl.float32)
    avg = acc / cnt
    tl.store(o_ptr + plane * OH * OW + cell, 1.0 / (1.0 + tl.exp(-avg)), mask=cm)


def _max_window(size, out):
    return max(((i + 1) * size + out - 1) // out - (i * size) // out for i in range(out))


def fused_sigmoid_adaptive_avg_pool2d(input, output_size):
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    N, C, H, W = x.shape
    if isinstance(output_size, int):
        oh = ow = output_size
    else:
        oh, ow = output_size
        oh = H if oh is None else oh
        ow = W if ow is None else ow
    res = torch.empty((N, C, oh, ow), dtype=input.dtype, device=input.device)
    if res.numel() > 0:
        BLOCK = 64
        grid = (N * C, triton.cdiv(oh * ow, BLOCK))
        _adaptive_avg_sigmoid_kernel[grid](x, res, C, H, W, oh, ow, x.stride(0), x.stride(1),
                                           x.stride(2), x.stride(3), _max_window(H, oh),
                                           _max_window(W, ow), BLOCK=BLOCK)
    return res[0] if unbatched else res
