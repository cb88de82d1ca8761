"""Math/softmax.py: softmax along any dim, optionally cast to `dtype` first, in one kernel.

Design: the reduced dim becomes the tile's column axis (stride-aware; the other dims are collapsed
into rows and addressed through their strides, so dim=0 and non-contiguous inputs need no
transpose copy). Each program owns a [BLOCK_M, BLOCK_N] tile of about 4K-8K elements: for short
rows (the perf sweep starts at N = 16) many rows share a program so each launch still moves big
coalesced vectors. Rows up to 8192 elements are held in registers: one HBM read, max, exp, sum,
one write (eager's softmax makes the same single pass only up to 1024 columns). Longer rows use
the online softmax (running max and rescaled sum in one sweep), then a second sweep writes
exp(x - m) / s: two reads and one write, instead of eager's three passes. The cast (`dtype`) is
done in registers; float64 computes in float64, everything else in float32.
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
def _softmax_kernel(x_ptr, y_ptr, M, N, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                    xsn, ysn, NDIM: tl.constexpr, ONE_TILE: tl.constexpr, F64: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    ctype = tl.float64 if F64 else tl.float32
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    xrow = _strided(rows, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    yrow = _strided(rows, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM)
    cols = tl.arange(0, BLOCK_N)
    if ONE_TILE:
        mask = rmask[:, None] & (cols[None, :] < N)
        x = tl.load(x_ptr + xrow[:, None] + cols[None, :] * xsn, mask=mask, other=-float("inf"))
        x = x.to(ctype)
        m = tl.max(x, axis=1)
        e = tl.exp(x - m[:, None])
        e = tl.where(mask, e, 0.0)
        s = tl.sum(e, axis=1)
        y = e / s[:, None]
        tl.store(y_ptr + yrow[:, None] + cols[None, :] * ysn, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        m = tl.full([BLOCK_M], -float("inf"), ctype)
        s = tl.zeros([BLOCK_M], ctype)
        for start in range(0, N, BLOCK_N):
            c = start + cols
            mask = rmask[:, None] & (c[None, :] < N)
            x = tl.load(x_ptr + xrow[:, None] + c[None, :] * xsn, mask=mask, other=-float("inf"))
            x = x.to(ctype)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
            e = tl.where(mask, tl.exp(x - m_safe[:, None]), 0.0)
            s = s * tl.exp(m - m_safe) + tl.sum(e, axis=1)
            m = m_new
        inv = 1.0 / s
        for start in range(0, N, BLOCK_N):
            c = start + cols
            mask = rmask[:, None] & (c[None, :] < N)
            x = tl.load(x_ptr + xrow[:, None] + c[None, :] * xsn, mask=mask, other=-float("inf"))
            y = tl.exp(x.to(ctype) - m[:, None]) * inv[:, None]
            tl.store(y_ptr + yrow[:, None] + c[None, :] * ysn, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim, dtype=None):
    out_dtype = dtype if dtype is not None else input.dtype
    y = torch.empty(input.shape, dtype=out_dtype, device=input.device)
    if input.dim() == 0:
        x, yv, dim = input.reshape(1), y.reshape(1), 0
    else:
        x, yv = input, y
    dim = dim % x.dim()
    N = x.shape[dim]
    M = x.numel() // N if N else 0
    if M == 0 or N == 0:
        return y
    xm, ym = x.movedim(dim, -1), yv.movedim(dim, -1)
    outer = xm.shape[:-1]
    plan = _plan(outer, [xm[..., 0], ym[..., 0]])
    if plan is None:
        xm = xm.contiguous()
        plan = _plan(outer, [xm[..., 0], ym[..., 0]])
    sizes, st, ndim = plan
    f64 = out_dtype == torch.float64
    limit = 4096 if f64 else 8192
    if N <= limit:
        BLOCK_N = triton.next_power_of_2(N)
        BLOCK_M = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_N))
        one = True
    else:
        BLOCK_N, BLOCK_M, one = 2048, 1, False
    warps = 8 if BLOCK_M * BLOCK_N >= 4096 else 4
    _softmax_kernel[(triton.cdiv(M, BLOCK_M),)](
        xm, ym, M, N, sizes[1], sizes[2], sizes[3], *st[0], *st[1], xm.stride(-1), ym.stride(-1),
        NDIM=ndim, ONE_TILE=one, F64=f64, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps)
    return y
