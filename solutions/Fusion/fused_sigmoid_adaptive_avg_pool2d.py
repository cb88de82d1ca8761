"""Fusion/fused_sigmoid_adaptive_avg_pool2d.py: sigmoid(adaptive_avg_pool2d(input, output_size))
in one launch: each output cell sums its window in registers, divides by the window's size and
applies the sigmoid before its single store (eager runs the pool, writes the pooled tensor and
runs a separate sigmoid kernel over it: two launches, which dominate at these sizes).

Design: one program per output cell (plane n*C + c, row i, column j); the cell's window, rows
floor(i H / oh) .. ceil((i + 1) H / oh) - 1 and columns floor(j W / ow) .. ceil((j + 1) W / ow) - 1
(windows may overlap or differ in size, exactly as torch's adaptive pool), is swept in
[BLOCK_H, BLOCK_W] tiles of up to 4096 elements (the perf sweep's 256 x 256 planes pooled to 4 x 4
give 64 x 64 windows: one tile, 4 warps, contiguous rows) with a float32 accumulator. Planes, rows
and columns are addressed through the input's strides (the (N, C) dims collapsed), so
non-contiguous and unbatched inputs are read in place. The sigmoid is 1 / (1 + exp(-avg)).
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
def _pool_sigmoid_kernel(x_ptr, y_ptr, H, W, OH, OW, sh, sw, S1, S2, S3, xs0, xs1, xs2, xs3,
                         NDIM: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0)
    plane = pid // (OH * OW)
    cell = pid % (OH * OW)
    i = cell // OW
    j = cell % OW
    h0 = (i * H) // OH
    h1 = ((i + 1) * H + OH - 1) // OH
    w0 = (j * W) // OW
    w1 = ((j + 1) * W + OW - 1) // OW
    base = x_ptr + _strided(plane, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    dh = tl.arange(0, BLOCK_H)
    dw = tl.arange(0, BLOCK_W)
    acc = tl.zeros([BLOCK_H, BLOCK_W], tl.float32)
    for r0 in range(h0, h1, BLOCK_H):
        rows = r0 + dh
        for c0 in range(w0, w1, BLOCK_W):
            cols = c0 + dw
            mask = (rows < h1)[:, None] & (cols < w1)[None, :]
            x = tl.load(base + rows[:, None] * sh + cols[None, :] * sw, mask=mask, other=0.0)
            acc += x.to(tl.float32)
    avg = tl.sum(tl.sum(acc, axis=1), axis=0) / ((h1 - h0) * (w1 - w0)).to(tl.float32)
    y = 1.0 / (1.0 + tl.exp(-avg))
    tl.store(y_ptr + plane * (OH * OW) + cell, y.to(y_ptr.dtype.element_ty))


def fused_sigmoid_adaptive_avg_pool2d(input, output_size):
    if input.dim() not in (3, 4):
        raise ValueError(f"adaptive_avg_pool2d: expected a 3-D or 4-D input, got "
                         f"{tuple(input.shape)}")
    H, W = input.shape[-2:]
    if isinstance(output_size, int):
        oh, ow = output_size, output_size
    else:
        oh, ow = output_size
    oh = H if oh is None else int(oh)
    ow = W if ow is None else int(ow)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be positive, got {output_size}")
    lead = list(input.shape[:-2])
    y = torch.empty(lead + [oh, ow], dtype=input.dtype, device=input.device)
    planes = 1
    for d in lead:
        planes *= d
    if planes == 0:
        return y
    if H == 0 or W == 0:
        raise RuntimeError("adaptive_avg_pool2d: input has an empty spatial dimension")
    sizes, st, ndim = _collapse(lead, [list(input.stride()[:-2])])
    kh = -(-H // oh) + 1
    kw = -(-W // ow) + 1
    BLOCK_W = min(triton.next_power_of_2(kw), 256)
    BLOCK_H = max(1, min(triton.next_power_of_2(kh), 4096 // BLOCK_W))
    _pool_sigmoid_kernel[(oh * ow * planes,)](
        input, y, H, W, oh, ow, input.stride(-2), input.stride(-1), sizes[1], sizes[2], sizes[3],
        *st[0], NDIM=ndim, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W,
        num_warps=4 if BLOCK_H * BLOCK_W >= 1024 else 1)
    return y
