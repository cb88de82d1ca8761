"""Pooling/avg_pool1d.py: 1-D average pooling (zero padding counted in the divisor) in one kernel.

Design: grid (rows, output blocks), where a row is one (n, c) signal addressed through the input's
strides (no .contiguous()). A program owns BLOCK_O outputs of one row and loads a [BLOCK_O, KP]
tile of taps (KP = kernel_size rounded up to a power of two, taps beyond kernel_size and outside
[0, L) masked to zero, which is the zero padding); when stride == kernel_size (the perf case,
k = 2) the tile is one contiguous span of the row, so each program reads 2 x BLOCK_O floats as
128-bit vectors and writes BLOCK_O: one read and one write of the data, at HBM bandwidth.
Kernels wider than 32 taps sweep the window in 32-tap chunks. float32 accumulation; the divisor
is kernel_size (count_include_pad). BLOCK_O = 1024 (8 warps) on long rows, smaller on short ones.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _avg_pool1d_kernel(x_ptr, y_ptr, C, L, Lo, sxn, sxc, sxl, stride, pad, inv_k,
                       KS: tl.constexpr, KP: tl.constexpr, BLOCK_O: tl.constexpr):
    row = tl.program_id(0)
    n = row // C
    c = row % C
    base = x_ptr + n.to(tl.int64) * sxn + c.to(tl.int64) * sxc
    o = tl.program_id(1) * BLOCK_O + tl.arange(0, BLOCK_O)
    omask = o < Lo
    start = o * stride - pad
    taps = tl.arange(0, KP)
    acc = tl.zeros([BLOCK_O], tl.float32)
    for k0 in tl.static_range(0, KS, KP):
        t = k0 + taps
        pos = start[:, None] + t[None, :]
        mask = omask[:, None] & (t[None, :] < KS) & (pos >= 0) & (pos < L)
        x = tl.load(base + pos.to(tl.int64) * sxl, mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=1)
    y = acc * inv_k
    tl.store(y_ptr + row.to(tl.int64) * Lo + o, y.to(y_ptr.dtype.element_ty), mask=omask)


def avg_pool1d(input, kernel_size, stride=None, padding=0):
    ks = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else int(kernel_size)
    st = ks if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else (
        stride[0] if isinstance(stride, (tuple, list)) else int(stride))
    pad = padding[0] if isinstance(padding, (tuple, list)) else int(padding)
    if ks <= 0 or st <= 0 or pad < 0 or pad > ks // 2:
        raise RuntimeError("avg_pool1d: invalid kernel_size, stride or padding")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    N, C, L = x.shape
    Lo = (L + 2 * pad - ks) // st + 1
    if Lo <= 0:
        raise RuntimeError(f"avg_pool1d: output size is too small ({Lo})")
    y = torch.empty((N, C, Lo), dtype=x.dtype, device=x.device)
    if y.numel():
        KP = min(triton.next_power_of_2(ks), 32)
        BLOCK_O = max(16, min(triton.next_power_of_2(Lo), 2048 // KP))
        grid = (N * C, triton.cdiv(Lo, BLOCK_O))
        _avg_pool1d_kernel[grid](x, y, C, L, Lo, x.stride(0), x.stride(1), x.stride(2), st, pad,
                                 1.0 / ks, KS=ks, KP=KP, BLOCK_O=BLOCK_O,
                                 num_warps=8 if BLOCK_O * KP >= 2048 else 4)
    return y if input.dim() == 3 else y.squeeze(0)
