"""Fusion/fused_cos_avg_pool1d.py: avg_pool1d(cos(input)) in one pass: every window takes the
cosine of its inputs in registers and averages them, so cos(input) is never written (eager writes
it to HBM and the pool reads it back: for the perf sweep's kernel 2 / stride 2, 14 bytes per input
element of traffic against this kernel's 6).

Design: rows are the (N, C) positions (collapsed and addressed through the input's strides, so a
non-contiguous or unbatched input is read in place), columns the L_out windows; a program owns a
[BLOCK_R, BLOCK_O] tile of about 2048 outputs (4 warps) and loops over the kernel_size taps:
tap j of window o reads position o * stride - padding + j, masked to [0, L) (the implicit zero
padding), so neighbouring windows' loads are adjacent and coalesced. The divisor follows
torch.avg_pool1d exactly: with count_include_pad the window clipped to [-padding, L + padding)
(ceil-mode windows running past the right padding divide by their in-range part), else the count
of real inputs; L_out is floor or ceil of (L + 2 padding - kernel) / stride + 1, a ceil-mode last
window dropped unless it starts inside the input or left padding. The cosine is range-reduced
first (k = round(x * 2 / pi), r = x - k pi / 2 in float64), so it stays accurate for large inputs,
then cos(r) or sin(r) comes from a short Taylor polynomial on |r| <= pi / 4 (no libdevice sin and
cos, which would each reduce again: the kernel stays memory-bound); math is float32.
"""
# expect: ok
import torch
import triton
import triton.language as tl

@triton.jit
def _strided(offs, S1, S2, S3, s0, s1, s2, s3, NDIM: tl.constexpr):
    # Element offset of flat (row-major) indices `offs` in an operand with strides s0..s3 over
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous / scalar case.
    if NDIM == 1:
        return offs * s3
    i3 = offs % S3
    r = offs // S3
    if NDIM == 2:
        return r * s2 + i3 * s3
    i2 = r % S2
    r = r // S2
    if NDIM == 3:
        return r * s1 + i2 * s2 + i3 * s3
    i1 = r % S1
    r = r // S1
    return r * s0 + i1 * s1 + i2 * s2 + i3 * s3

def _collapse(sizes, strides):
    """Drops size-1 dims and merges dims every operand walks contiguously, padded to 4 dims.
    `strides` holds one stride list per operand. Returns (sizes[4], [strides[4]...], ndim), or
    None when more than 4 dims remain."""
    dims = [d for d in range(len(sizes)) if sizes[d] != 1]
    sizes = [sizes[d] for d in dims]
    strides = [[s[d] for d in dims] for s in strides]
    i = len(sizes) - 1
    while i > 0:
        if all(s[i - 1] == s[i] * sizes[i] for s in strides):
            sizes[i - 1] *= sizes[i]
            del sizes[i]
            for s in strides:
                s[i - 1] = s[i]
                del s[i]
        i -= 1
    if len(sizes) > 4:
        return None
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], max(len(sizes), 1)

@triton.jit
def _cos(x):
    k = tl.floor(x * 0.6366197723675814 + 0.5)
    r = (x.to(tl.float64) - k.to(tl.float64) * 1.5707963267948966).to(tl.float32)
    q = k.to(tl.int32) & 3
    # |r| <= pi / 4: Taylor polynomials (Horner, float32) are exact to well under an ulp of the
    # result there (next terms r^11 / 11! < 2e-9 and r^12 / 12! < 1e-10), far cheaper than
    # libdevice's cosf and sinf, which would each redo a range reduction.
    r2 = r * r
    cr = 1.0 + r2 * (-0.5 + r2 * (4.1666666666666664e-02 + r2 * (-1.3888888888888889e-03 + r2 * (
        2.4801587301587302e-05 + r2 * -2.7557319223985888e-07))))
    sr = r * (1.0 + r2 * (-1.6666666666666666e-01 + r2 * (8.3333333333333332e-03 + r2 * (
        -1.9841269841269841e-04 + r2 * 2.7557319223985893e-06))))
    return tl.where(q == 0, cr, tl.where(q == 1, -sr, tl.where(q == 2, -cr, sr)))


@triton.jit
def _cos_avg_pool1d_kernel(x_ptr, y_ptr, R, L, L_out, ksize, stride, padding, xsl,
                           S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                           COUNT_PAD: tl.constexpr, NDIM: tl.constexpr, BLOCK_R: tl.constexpr,
                           BLOCK_O: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    outs = tl.program_id(1) * BLOCK_O + tl.arange(0, BLOCK_O)
    rmask = rows < R
    omask = outs < L_out
    xr = _strided(rows, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    yr = _strided(rows, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM)
    start = outs * stride - padding
    acc = tl.zeros([BLOCK_R, BLOCK_O], tl.float32)
    for j in range(0, ksize):
        pos = start + j
        valid = (pos >= 0) & (pos < L) & omask
        mask = rmask[:, None] & valid[None, :]
        x = tl.load(x_ptr + xr[:, None] + pos[None, :] * xsl, mask=mask, other=0.0)
        acc += tl.where(mask, _cos(x.to(tl.float32)), 0.0)
    if COUNT_PAD:
        end = tl.minimum(start + ksize, L + padding)
        count = end - start
    else:
        count = tl.minimum(start + ksize, L) - tl.maximum(start, 0)
    y = acc / count.to(tl.float32)[None, :]
    tl.store(y_ptr + yr[:, None] + outs[None, :], y.to(y_ptr.dtype.element_ty),
             mask=rmask[:, None] & omask[None, :])


def fused_cos_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                         count_include_pad=True):
    k = int(kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size)
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        s = k
    else:
        s = int(stride[0] if isinstance(stride, (tuple, list)) else stride)
    p = int(padding[0] if isinstance(padding, (tuple, list)) else padding)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d: expected a 2-D or 3-D input, got {tuple(input.shape)}")
    if k <= 0 or s <= 0 or p < 0 or p > k // 2:
        raise RuntimeError(f"avg_pool1d: invalid kernel_size={k}, stride={s}, padding={p} (pad "
                           "must be at most half of the kernel size)")
    L = input.shape[-1]
    span = L + 2 * p - k
    if span < 0:
        raise RuntimeError(f"avg_pool1d: input length {L} is too small for kernel {k} with "
                           f"padding {p}")
    L_out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (L_out - 1) * s >= L + p:
        L_out -= 1
    lead = list(input.shape[:-1])
    y = torch.empty(lead + [L_out], dtype=input.dtype, device=input.device)
    R = 1
    for d in lead:
        R *= d
    if R == 0 or L_out == 0:
        return y
    x = input
    plan = _collapse(lead, [list(x.stride()[:-1]), list(y.stride()[:-1])])
    sizes, st, ndim = plan
    BLOCK_O = min(triton.next_power_of_2(L_out), 1024)
    BLOCK_R = max(1, min(triton.next_power_of_2(R), 2048 // BLOCK_O))
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(L_out, BLOCK_O))
    _cos_avg_pool1d_kernel[grid](x, y, R, L, L_out, k, s, p, x.stride(-1), sizes[1], sizes[2],
                                 sizes[3], *st[0], *st[1], COUNT_PAD=bool(count_include_pad),
                                 NDIM=ndim, BLOCK_R=BLOCK_R, BLOCK_O=BLOCK_O, num_warps=4)
    return y
