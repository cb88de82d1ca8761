"""Index/scatter.py: out-of-place torch.scatter as two launches: a strided copy of `input` into the
fresh output, then one scatter kernel over the index elements.

Design: (1) copy: flat 1-D grid over the output (4096 elements / 8 warps per program above 1M
elements, 1024 / 4 below), the input read through its own strides after the iteration space is
collapsed, the output written as 128-bit vectors. (2) scatter: flat 1-D grid over index's
elements; index, src (the leading index-shaped block of src) and the output are walked with one
collapsed plan in which the output's stride along `dim` is zeroed, so each element's destination
is plan_offset + index * out.stride(dim): one read of index and src, one write, no temporaries,
and the non-contiguous index (every other element of a wider buffer) is read in place. Lines
along `dim` hold distinct indices (the contract), so no two elements race for one output. Any
dtype; 64-bit offsets only when the tensors need them. Same launches as eager (clone, scatter)
without its TensorIterator setup; the copy is the bandwidth floor for a fresh output.
"""
# expect: ok
import torch
import triton
import triton.language as tl


def _plan(shape, strides):
    """Collapse an iteration space: drop size-1 dims, merge dims that every operand walks
    contiguously, pad to 4 dims. `strides` holds one stride list per operand. Returns
    (sizes[4], [strides[4] per operand], ndim), or None when more than 4 dims remain."""
    strides = [list(s) for s in strides]
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
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous case.
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
def _copy_kernel(x_ptr, y_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM: tl.constexpr,
                 I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask)
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _scatter_kernel(idx_ptr, src_ptr, y_ptr, n, sdim, S1, S2, S3, is0, is1, is2, is3,
                    ss0, ss1, ss2, ss3, ys0, ys1, ys2, ys3, NDIM: tl.constexpr, I64: tl.constexpr,
                    BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + _strided(offs, S1, S2, S3, is0, is1, is2, is3, NDIM), mask=mask, other=0)
    if not I64:
        idx = idx.to(tl.int32)
    v = tl.load(src_ptr + _strided(offs, S1, S2, S3, ss0, ss1, ss2, ss3, NDIM), mask=mask)
    dst = _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM) + idx * sdim
    tl.store(y_ptr + dst, v.to(y_ptr.dtype.element_ty), mask=mask)


def _launch(n):
    big = n >= (1 << 20)
    return (4096, 8) if big else (1024, 4)


def _span(sizes, strides):
    return max(max(abs(s) * (d - 1) for s, d in zip(st, sizes)) for st in strides) + 1


def scatter(input, dim, index, src):
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    x = input
    plan = _plan(x.shape, [x.stride()])
    if plan is None:
        x = x.contiguous()
        plan = _plan(x.shape, [x.stride()])
    sizes, st, ndim = plan
    BLOCK, warps = _launch(n)
    i64 = max(n, _span(sizes, st)) + BLOCK >= 2**31
    _copy_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, sizes[1], sizes[2], sizes[3], *st[0],
                                           NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    m = index.numel()
    if m == 0:
        return y
    if y.dim() == 0:
        y1, idx, sv, d = y.reshape(1), index.reshape(1), src.reshape(1), 0
    else:
        y1, idx, sv, d = y, index, src, dim % y.dim()
    if not isinstance(sv, torch.Tensor):
        raise TypeError("scatter: src must be a tensor")
    ystr = list(y1.stride())
    ystr[d] = 0
    ops = [idx.stride(), sv.stride(), ystr]
    plan = _plan(idx.shape, ops)
    if plan is None:
        idx, sv = idx.contiguous(), sv[tuple(slice(0, s) for s in idx.shape)].contiguous()
        plan = _plan(idx.shape, [idx.stride(), sv.stride(), ystr])
    sizes, st, ndim = plan
    BLOCK, warps = _launch(m)
    i64 = max(n, m, _span(sizes, st)) + BLOCK >= 2**31
    _scatter_kernel[(triton.cdiv(m, BLOCK),)](idx, sv, y1, m, y1.stride(d), sizes[1], sizes[2],
                                              sizes[3], *st[0], *st[1], *st[2], NDIM=ndim, I64=i64,
                                              BLOCK=BLOCK, num_warps=warps)
    return y
