"""Fusion/fused_index_select_eq.py: torch.eq(torch.index_select(input, dim, index), other) in one
pass: each output element reads its selected input element and writes one bool (eager's
index_select writes the whole selected tensor to HBM and eq reads it back: for the perf sweep's
float32 input, 13 bytes per output element of traffic against this kernel's 5).

Design: a flat 1-D grid over the output (4096 elements and 8 warps per program from 1M elements
up, 1024 and 4 below). The input is seen through a strided view of the output's shape whose
stride along `dim` is 0, and the index through a view that walks it along `dim` only, so
out[p] = input[view_offset(p) + index[i(p)] * input.stride(dim)] == other[p]; every operand
(input view, index view, `other` broadcast to the output, and the output) is addressed through
its own strides after the iteration space is collapsed, so non-contiguous inputs and broadcast
rows are read in place with no copy. `other` as a Python number is a kernel scalar. Both sides are
converted to torch.eq's promoted dtype before the comparison (int64, float32 or float64), so
integer data compared with a float follows torch's type promotion exactly.
"""
# expect: ok
import torch
import triton
import triton.language as tl

def _plan(shape, tensors):
    """Collapse a broadcast iteration space: drop size-1 dims, merge dims that every operand
    walks contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or
    None when more than 4 dims remain (callers then fall back to contiguous copies)."""
    strides = [list(t.expand(shape).stride()) for t in tensors]
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
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
    ndim = max(len(sizes), 1)
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], ndim


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

@triton.jit
def _index_select_eq_kernel(x_ptr, i_ptr, o_ptr, y_ptr, n, o_scalar, xsd, S1, S2, S3,
                            xs0, xs1, xs2, xs3, is0, is1, is2, is3, os0, os1, os2, os3,
                            ys0, ys1, ys2, ys3, CT: tl.constexpr, O_IS_TENSOR: tl.constexpr,
                            NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    ct = tl.int64 if CT == 0 else (tl.float32 if CT == 1 else tl.float64)
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(i_ptr + _strided(offs, S1, S2, S3, is0, is1, is2, is3, NDIM), mask=mask, other=0)
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM) + idx * xsd,
                mask=mask, other=0).to(ct)
    if O_IS_TENSOR:
        o = tl.load(o_ptr + _strided(offs, S1, S2, S3, os0, os1, os2, os3, NDIM), mask=mask,
                    other=0).to(ct)
    else:
        o = (tl.zeros_like(x) + o_scalar).to(ct)
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM), x == o, mask=mask)


def fused_index_select_eq(input, dim, index, other, *, out=None):
    if index.dim() > 1 or index.dtype not in (torch.int64, torch.int32):
        raise IndexError("index_select(): Index is supposed to be a vector of int64 or int32")
    x = input.reshape(1) if input.dim() == 0 else input
    idx = index.reshape(-1)
    dim = dim % x.dim()
    shape = list(x.shape)
    shape[dim] = idx.numel()
    o_is_tensor = isinstance(other, torch.Tensor)
    ct = torch.result_type(input, other)
    if ct.is_complex or ct in (torch.float16, torch.bfloat16):
        ct = torch.float64 if ct.is_complex else torch.float32
    kind = 0 if not ct.is_floating_point else (2 if ct == torch.float64 else 1)
    if o_is_tensor:
        shape = list(torch.broadcast_shapes(shape, other.shape))
        if shape[dim] != idx.numel() or len(shape) != x.dim():
            raise RuntimeError(f"fused_index_select_eq: other {tuple(other.shape)} must broadcast "
                               f"to the selected shape")
    y = torch.empty(shape, dtype=torch.bool, device=input.device)
    n = y.numel()
    if n:
        xst = list(x.stride())
        xsd = xst[dim]
        xst[dim] = 0
        xv = x.as_strided(shape, xst, x.storage_offset())
        ist = [0] * len(shape)
        ist[dim] = idx.stride(0)
        iv = idx.as_strided(shape, ist, idx.storage_offset())
        ov = other.expand(shape) if o_is_tensor else xv
        yv = y.view(torch.uint8)
        plan = _plan(shape, [xv, iv, ov, yv])
        if plan is None:
            raise NotImplementedError("fused_index_select_eq: more than 4 non-mergeable dims")
        sizes, st, ndim = plan
        if o_is_tensor:
            o_scalar = 0
        else:
            o_scalar = float(other) if kind else int(other)
        BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
        span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st)
        span = max(span + abs(xsd) * x.shape[dim], x.numel())
        _index_select_eq_kernel[(triton.cdiv(n, BLOCK),)](
            xv, iv, ov, yv, n, o_scalar, xsd, sizes[1], sizes[2], sizes[3], *st[0], *st[1],
            *st[2], *st[3], CT=kind, O_IS_TENSOR=o_is_tensor, NDIM=ndim,
            I64=max(n, span) + BLOCK >= 2**31, BLOCK=BLOCK, num_warps=warps)
    if input.dim() == 0:
        y = y.reshape(())
    if out is not None:
        return out.copy_(y)
    return y
