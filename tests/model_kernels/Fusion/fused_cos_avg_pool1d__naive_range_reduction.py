"""Fusion/fused_cos_avg_pool1d.py variant that reduces the cosine's argument itself, in float32
("keep tl.cos in [-pi, pi]"): r = x - floor(x / 2pi + 0.5) * 2pi with 2pi rounded to float32, then
tl.cos(r). The rounded constant is off by 1.7e-7, so r drifts by about |x| * 3e-8: harmless for the
public inputs (|x| below about 40), about 3e-4 at |x| = 1e4, and still about 1e-4 after a window's
average, far beyond the float32 tolerance. The description asks for cos of any float32 input;
kbx's wide_range_2x8x255_k4_s2_p1 case (uniform on [-1e4, 1e4]) fails it, the public cases do not.
Otherwise as the correct kernel (windows, padding, ceil mode and divisors as torch's avg_pool1d).
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_avg_pool1d_kernel(x_ptr, o_ptr, L, L_out, sxr, sxl, K, S, PAD,
                           COUNT_PAD: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    i = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    imask = i < L_out
    start = i * S - PAD
    end = tl.minimum(start + K, L + PAD)
    pool = end - start
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        j = start + k
        m = imask & (j >= 0) & (j < L)
        v = tl.load(x_ptr + row * sxr + j * sxl, mask=m, other=0.0)
        r = v - tl.floor(v * 0.15915494309189535 + 0.5) * 6.283185307179586
        acc += tl.where(m, tl.cos(r), 0.0)
    s0 = tl.maximum(start, 0)
    e0 = tl.minimum(end, L)
    if COUNT_PAD:
        div = pool
    else:
        div = e0 - s0
    tl.store(o_ptr + row * L_out + i, acc / div.to(tl.float32), mask=imask)


def _out_len(L, k, s, pad, ceil_mode):
    num = L + 2 * pad - k
    if ceil_mode:
        n = -(-num // s) + 1
        if (n - 1) * s >= L + pad:
            n -= 1
    else:
        n = num // s + 1
    return n


def fused_cos_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else int(kernel_size)
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        s = k
    else:
        s = stride[0] if isinstance(stride, (tuple, list)) else int(stride)
    pad = padding[0] if isinstance(padding, (tuple, list)) else int(padding)
    if pad > k // 2:
        raise ValueError("pad should be at most half of effective kernel size")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    Nb, C, L = x.shape
    L_out = _out_len(L, k, s, pad, ceil_mode)
    if L_out <= 0:
        raise ValueError("output size is too small")
    x2 = x.reshape(Nb * C, L)
    res = torch.empty((Nb * C, L_out), dtype=input.dtype, device=input.device)
    if res.numel() > 0:
        BLOCK = 128
        grid = (Nb * C, triton.cdiv(L_out, BLOCK))
        _cos_avg_pool1d_kernel[grid](x2, res, L, L_out, x2.stride(0), x2.stride(1), k, s, pad,
                                     COUNT_PAD=bool(count_include_pad), BLOCK=BLOCK)
    res = res.reshape(Nb, C, L_out)
    return res[0] if unbatched else res
