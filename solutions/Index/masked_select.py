"""Index/masked_select.py: torch.masked_select as a two-kernel stream compaction (count, then
scan-and-scatter), broadcasting input and mask in place.

Design: the broadcast shape is collapsed like an elementwise space (size-1 dims dropped, jointly
contiguous dims merged) and both operands are addressed through their own (possibly stride-0)
strides, so a broadcast mask or input is never materialised and a non-contiguous input is read in
place. (1) count: one program per BLOCK = 4096 elements counts its True flags (one byte each).
(2) write: each program sums the counts of the blocks before it (at most 1024 int32 values for
the 4M-element perf input, read from L2) for its output offset, recomputes its flags, takes an
inclusive tl.cumsum for the in-block positions and stores the selected elements at offset +
position: row-major order, deterministic, no atomics; program 0 also writes the grand total. The
result goes into a buffer of the worst-case size n and the host, after both launches, reads the
total (the one synchronisation the op needs; eager's masked_select makes it too) and returns the
leading `total` elements, a contiguous view. The mask is read twice (1 byte per element each
time) and the input once, only where selected.
"""
# expect: ok
import torch
import triton
import triton.language as tl


def _plan(shape, tensors):
    """Collapse an iteration space: drop size-1 dims, merge dims that every operand walks
    contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or None when
    more than 4 dims remain."""
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
def _count_kernel(m_ptr, counts_ptr, n, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM: tl.constexpr,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=valid, other=0)
    tl.store(counts_ptr + pid, tl.sum((m != 0).to(tl.int32), axis=0))


@triton.jit
def _write_kernel(x_ptr, m_ptr, counts_ptr, y_ptr, n, nb, S1, S2, S3, xs0, xs1, xs2, xs3,
                  ms0, ms1, ms2, ms3, NDIM: tl.constexpr, BLOCK: tl.constexpr,
                  CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    # This block's output offset: the sum of the earlier blocks' counts (at most nb int32 reads
    # from L2, 1024 per step), so no separate scan launch is needed. Program 0 also sums them all
    # and writes the total after the counts, for the host.
    idx = tl.arange(0, CHUNK)
    base = tl.sum(tl.zeros([CHUNK], tl.int64), axis=0)
    for s in range(0, pid, CHUNK):
        c = tl.load(counts_ptr + s + idx, mask=s + idx < pid, other=0)
        base += tl.sum(c.to(tl.int64), axis=0)
    if pid == 0:
        total = tl.sum(tl.zeros([CHUNK], tl.int64), axis=0)
        for s in range(0, nb, CHUNK):
            c = tl.load(counts_ptr + s + idx, mask=s + idx < nb, other=0)
            total += tl.sum(c.to(tl.int64), axis=0)
        tl.store(counts_ptr + nb, total.to(tl.int32))
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=valid, other=0)
    sel = (m != 0) & valid
    pos = tl.cumsum(sel.to(tl.int32), axis=0) - 1
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=sel)
    tl.store(y_ptr + base + pos, x, mask=sel)


def masked_select(input, mask):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected a bool mask, got {mask.dtype}")
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return torch.empty(0, dtype=input.dtype, device=input.device)
    m = mask.view(torch.uint8)
    plan = _plan(shape, [input, m])
    x = input
    if plan is None:
        x, m = input.expand(shape).contiguous(), m.expand(shape).contiguous()
        plan = _plan(shape, [x, m])
    sizes, st, ndim = plan
    BLOCK = 4096
    nb = triton.cdiv(n, BLOCK)
    if n >= 2**31 - 1:
        raise NotImplementedError("masked_select: more than 2**31 - 2 elements")
    counts = torch.empty(nb + 1, dtype=torch.int32, device=input.device)
    # The result is written into a buffer of the worst-case size n and returned as its leading
    # `total` elements (a contiguous view), so the one host synchronisation comes after all the
    # work instead of between the launches.
    y = torch.empty(n, dtype=input.dtype, device=input.device)
    _count_kernel[(nb,)](m, counts, n, sizes[1], sizes[2], sizes[3], *st[1], NDIM=ndim, BLOCK=BLOCK,
                         num_warps=8)
    _write_kernel[(nb,)](x, m, counts, y, n, nb, sizes[1], sizes[2], sizes[3], *st[0], *st[1],
                         NDIM=ndim, BLOCK=BLOCK, CHUNK=1024, num_warps=8)
    total = int(counts[nb].item())
    return y[:total]
