"""Fusion/fused_cos_avg_pool1d.py: one Triton kernel over (row = (n, c), block of output
positions): output i averages cos(input[j]) for j in the window [i*stride - padding,
i*stride - padding + kernel_size) clipped to the input, divided by kernel_size's in-range part
end - start with end clipped at L + padding (count_include_pad=True) or by the number of real
elements (False). L_out = floor/ceil((L + 2*padding - kernel_size) / stride) + 1, and in ceil mode
a last window starting at or beyond L + padding is dropped, as torch does. Unbatched (C, L) inputs
are handled as N = 1; any strides are passed to the kernel.
"""
# expect: ok
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
        acc += tl.where(m, tl.cos(v), 0.0)
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
