"""Index/permute_copy.py: torch.permute_copy as a tiled transpose: every tile is read along the
input's contiguous dim and written along the output's, so both sides are coalesced.

Design: the output is contiguous; its last dim `a` is the write-contiguous axis, and the output
dim `b` with the smallest input stride is the read-contiguous axis. When they coincide (the
permutation keeps the innermost dim) the op is a strided copy: a flat grid over the output with
the input addressed through its permuted strides after the iteration space is collapsed (4096
elements / 8 warps per program on big tensors). Otherwise each program moves a [32 x 32] tile of
the (a, b) plane for one position of the remaining dims (collapsed like an elementwise space and
addressed through both tensors' strides): the tile is loaded with the input's contiguity and
stored with the output's, and Triton stages the layout change through shared memory, which is
what a hand-written CUDA transpose does. Eager's permute_copy (TensorIterator) reads or writes
with a large stride on one side, so for the perf sweep (a D^4 tensor fully reversed) every
32-byte sector it touches on that side carries 4 useful bytes. Any dtype (float32 and int64
here), negative dims, non-contiguous inputs; 64-bit offsets only when needed.
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
    tl.store(y_ptr + offs, v, mask=mask)


@triton.jit
def _transpose_kernel(x_ptr, y_ptr, SA, SB, xa, xb, ya, yb, S1, S2, S3, xs0, xs1, xs2, xs3,
                      ys0, ys1, ys2, ys3, NDIM: tl.constexpr, I64: tl.constexpr,
                      BA: tl.constexpr, BB: tl.constexpr):
    r = tl.program_id(0)
    if I64:
        r = r.to(tl.int64)
    xr = _strided(r, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    yr = _strided(r, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM)
    ia = tl.program_id(1) * BA + tl.arange(0, BA)
    ib = tl.program_id(2) * BB + tl.arange(0, BB)
    if I64:
        ia = ia.to(tl.int64)
        ib = ib.to(tl.int64)
    mask = (ia[:, None] < SA) & (ib[None, :] < SB)
    v = tl.load(x_ptr + xr + ia[:, None] * xa + ib[None, :] * xb, mask=mask)
    tl.store(y_ptr + yr + ia[:, None] * ya + ib[None, :] * yb, v, mask=mask)


def permute_copy(input, dims):
    nd = input.dim()
    dims = [int(d) % nd for d in dims] if nd else []
    if sorted(dims) != list(range(nd)):
        raise RuntimeError(f"permute_copy: dims {list(dims)} is not a permutation of 0..{nd - 1}")
    shape = [input.shape[d] for d in dims]
    y = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    xst = [input.stride(d) for d in dims]
    yst = list(y.stride())
    live = [i for i in range(nd) if shape[i] > 1]
    a = live[-1] if live else 0
    b = min(live, key=lambda i: (abs(xst[i]), -i)) if live else 0
    span = sum(abs(s) * (d - 1) for s, d in zip(xst, shape)) + 1
    i64 = max(n, span) + 4096 >= 2**31
    if a == b:
        plan = _plan(shape, [xst])
        x = input
        if plan is None:
            raise ValueError("permute_copy: more than 4 non-mergeable dims")
        sizes, st, ndim = plan
        BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
        _copy_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, sizes[1], sizes[2], sizes[3], *st[0],
                                               NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
        return y
    rest = [i for i in range(nd) if i not in (a, b)]
    plan = _plan([shape[i] for i in rest], [[xst[i] for i in rest], [yst[i] for i in rest]])
    if plan is None:
        raise ValueError("permute_copy: more than 6 non-mergeable dims")
    sizes, st, ndim = plan
    R = sizes[0] * sizes[1] * sizes[2] * sizes[3]
    BA = BB = 32
    grid = (R, triton.cdiv(shape[a], BA), triton.cdiv(shape[b], BB))
    _transpose_kernel[grid](input, y, shape[a], shape[b], xst[a], xst[b], yst[a], yst[b],
                            sizes[1], sizes[2], sizes[3], *st[0], *st[1], NDIM=ndim, I64=i64,
                            BA=BA, BB=BB, num_warps=4)
    return y
