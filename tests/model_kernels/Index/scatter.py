"""Index/scatter.py: copy input with a copy kernel, then one program per index block computes
each index element's coordinates, reads src at the same coordinates and writes out at the
index-replaced coordinate.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.jit
def _scatter_kernel(out_ptr, idx_ptr, src_ptr, n_idx,
                    i0, i1, i2, so0, so1, so2, ss0, ss1, ss2, DIM: tl.constexpr,
                    BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_idx
    c2 = offs % i2
    c1 = (offs // i2) % i1
    c0 = offs // (i2 * i1)
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    val = tl.load(src_ptr + c0 * ss0 + c1 * ss1 + c2 * ss2, mask=m, other=0.0)
    if DIM == 0:
        dst = idx * so0 + c1 * so1 + c2 * so2
    elif DIM == 1:
        dst = c0 * so0 + idx * so1 + c2 * so2
    else:
        dst = c0 * so0 + c1 * so1 + idx * so2
    tl.store(out_ptr + dst, val, mask=m)


def scatter(input, dim, index, src):
    nd = input.dim()
    dim = dim % nd
    out = torch.empty_like(input, memory_format=torch.contiguous_format)
    x = input.contiguous()
    n = x.numel()
    _copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
    # pad everything to 3-D (leading size-1 dims)
    pad = 3 - nd
    idx = index.contiguous().reshape((1,) * pad + tuple(index.shape))
    o3 = out.reshape((1,) * pad + tuple(out.shape))
    s3 = src.reshape((1,) * pad + tuple(src.shape))
    d3 = dim + pad
    n_idx = idx.numel()
    if n_idx > 0:
        _scatter_kernel[(triton.cdiv(n_idx, 1024),)](o3, idx, s3, n_idx, idx.shape[0], idx.shape[1], idx.shape[2],
                                                      o3.stride(0), o3.stride(1), o3.stride(2),
                                                      s3.stride(0), s3.stride(1), s3.stride(2),
                                                      DIM=d3, BLOCK_SIZE=1024)
    return out
