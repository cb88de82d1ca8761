"""Pooling/adaptive_avg_pool2d.py: 2-D adaptive average pooling in one kernel, any window layout.

Design: a flat 1-D grid over the (planes x Ho x Wo) outputs, BLOCK outputs per program. Each
output computes its window from integer math exactly as torch does (start = i * H // Ho,
end = ((i + 1) * H + Ho - 1) // Ho; same for columns), so overlapping, repeated (output larger
than input) and uneven windows all work. The window is swept row by row (at most
ceil(H / Ho) + 1 rows, a runtime loop) and each row is a [BLOCK, KWP] tile of taps (KWP = the
widest window rounded up to a power of two, extra taps masked): for the perf case (H -> H / 2,
exact 2 x 2 windows) consecutive outputs' taps are one contiguous span of the input row, so the
loads are coalesced vectors and the input is read exactly once, the output written once. Planes
and rows are addressed through the input's strides (no .contiguous()); float32 accumulation,
divided by the window's own size. BLOCK = 1024 (8 warps) on big outputs.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _adaptive_avg_pool2d_kernel(x_ptr, y_ptr, total, C, H, W, Ho, Wo, sxn, sxc, sxh, sxw,
                                KH, KWP: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    omask = o < total
    j = (o % Wo).to(tl.int32)
    r = o // Wo
    i = (r % Ho).to(tl.int32)
    plane = r // Ho
    base = (plane // C) * sxn + (plane % C) * sxc
    h0 = (i * H) // Ho
    h1 = ((i + 1) * H + Ho - 1) // Ho
    w0 = (j * W) // Wo
    w1 = ((j + 1) * W + Wo - 1) // Wo
    taps = tl.arange(0, KWP)
    wpos = w0[:, None] + taps[None, :]
    wmask = omask[:, None] & (wpos < w1[:, None])
    # The taps accumulate as a [BLOCK, KWP] tile and are summed once after the loop: a tl.sum
    # inside the loop is rewritten by Triton's thread-locality pass (a `reshape allow_reorder` to
    # [BLOCK, 1, KWP]) which, with two rows per thread and one tap per register (a strided input,
    # sxw != 1), mixed taps of different outputs on the H200.
    acc2 = tl.zeros([BLOCK, KWP], tl.float32)
    for dh in range(0, KH):
        h = h0 + dh
        mask = wmask & (h < h1)[:, None]
        ptr = x_ptr + (base + h.to(tl.int64) * sxh)[:, None] + wpos.to(tl.int64) * sxw
        acc2 += tl.load(ptr, mask=mask, other=0.0).to(tl.float32)
    acc = tl.sum(acc2, axis=1)
    count = ((h1 - h0) * (w1 - w0)).to(tl.float32)
    tl.store(y_ptr + o, (acc / count).to(y_ptr.dtype.element_ty), mask=omask)


def adaptive_avg_pool2d(input, output_size):
    x = input if input.dim() == 4 else input.unsqueeze(0)
    N, C, H, W = x.shape
    if isinstance(output_size, int):
        Ho, Wo = output_size, output_size
    else:
        Ho, Wo = output_size
        Ho = H if Ho is None else int(Ho)
        Wo = W if Wo is None else int(Wo)
    y = torch.empty((N, C, Ho, Wo), dtype=x.dtype, device=x.device)
    total = y.numel()
    if total:
        if H == 0 or W == 0:
            raise RuntimeError("adaptive_avg_pool2d: empty spatial input")
        KH = triton.cdiv(H, Ho) + (1 if H % Ho else 0)
        KW = triton.cdiv(W, Wo) + (1 if W % Wo else 0)
        KWP = triton.next_power_of_2(KW)
        BLOCK = max(32, min(1024, 4096 // KWP, triton.next_power_of_2(total)))
        _adaptive_avg_pool2d_kernel[(triton.cdiv(total, BLOCK),)](
            x, y, total, C, H, W, Ho, Wo, x.stride(0), x.stride(1), x.stride(2), x.stride(3), KH,
            KWP=KWP, BLOCK=BLOCK, num_warps=8 if BLOCK * KWP >= 2048 else 4)
    return y if input.dim() == 4 else y.squeeze(0)
