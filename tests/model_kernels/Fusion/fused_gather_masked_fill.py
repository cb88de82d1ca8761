"""Fusion/fused_gather_masked_fill.py: one Triton kernel over the flattened index (index and the
mask, broadcast to index's shape, made contiguous on the host; shapes padded to 4-D with leading
size-1 dims). Each output position decomposes its flat offset into (i0, i1, i2, i3) over index's
shape, replaces the coordinate along `dim` by index[...], and loads input at that position through
input's own strides (any layout); where the mask is True it stores `value` converted to the input's
dtype (int(value), truncating, for integer inputs) instead. Returns a new tensor shaped like index
in input's dtype; with `out` the result is copied into it and returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _gather_fill_kernel(x_ptr, idx_ptr, m_ptr, o_ptr, n, value, D1, D2, D3,
                        s0, s1, s2, s3, DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    msk = offs < n
    i3 = offs % D3
    t = offs // D3
    i2 = t % D2
    t = t // D2
    i1 = t % D1
    i0 = t // D1
    g = tl.load(idx_ptr + offs, mask=msk, other=0)
    if DIM == 0:
        i0 = g
    elif DIM == 1:
        i1 = g
    elif DIM == 2:
        i2 = g
    else:
        i3 = g
    v = tl.load(x_ptr + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3, mask=msk)
    fill = tl.load(m_ptr + offs, mask=msk, other=0) != 0
    fv = tl.full([BLOCK_SIZE], value, v.dtype)
    tl.store(o_ptr + offs, tl.where(fill, fv, v), mask=msk)


def fused_gather_masked_fill(input, dim, index, mask, value, *, sparse_grad=False, out=None):
    nd = input.dim()
    if index.dim() != nd:
        raise RuntimeError("gather: index must have the same number of dimensions as input")
    if nd > 4:
        raise NotImplementedError("at most 4 dimensions")
    d = dim + nd if dim < 0 else dim
    pad = 4 - nd
    ishape = [1] * pad + list(index.shape)
    strides = [0] * pad + [input.stride(k) for k in range(nd)]
    idx = index.contiguous()
    m = mask.expand(index.shape).contiguous().to(torch.int8)
    res = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    if input.dtype.is_floating_point:
        v = float(value)
    else:
        v = int(value)
    n = res.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _gather_fill_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            input, idx, m, res, n, v, ishape[1], ishape[2], ishape[3],
            strides[0], strides[1], strides[2], strides[3], DIM=d + pad, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(res)
        return out
    return res
