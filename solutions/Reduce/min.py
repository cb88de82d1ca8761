"""Reduce/min.py: (values, indices) of the minimum along `dim`, first occurrence on ties, in one
streaming pass over the input.

Design: the reduction is viewed as an [M, N] matrix, the other dims as rows and `dim` as the
column axis, each side collapsed and addressed through the input's own strides, so any dim and
non-contiguous inputs are read in place with no transpose copy. A program owns BLOCK_M rows and
sweeps their columns in [BLOCK_M, BLOCK_N] tiles of 4096 elements (8 warps; with 1024 rows or
more, the perf sweep's (S, 1024), a tile is 32 rows x 128 columns, one warp's width of 128-bit
vectors), keeping a running (min, column) per lane, replaced only when strictly smaller
(elementwise: no reduction inside the sweep); after it the lanes combine once per row (a warp
shuffle for 128-column tiles: the min, then the smallest column holding it), so ties resolve to
the first occurrence as torch.min does. NaN is the minimum
(torch.min propagates it): the first NaN's column is tracked on the side and wins, with a NaN
value. Values are compared in float32, float64 or int64 as loaded and returned in the input's
dtype. When the row blocks cannot fill the 132 SMs the columns are split over up to 4 x 132
programs that each write a (min, index, first NaN) partial, and a second small launch combines
them (the highest index among equal minima): deterministic, no atomics.
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

# The entry point shadows the builtin min; the host helpers use min_.
min_ = min


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


def _reduce_plan(shape, operands, dim):
    """Views the reduction as a [M, N] matrix: kept dims (in order) are the rows, reduced dims the
    columns. `operands` are tensors broadcastable to `shape`. Returns (M, N, reduced dims, row
    plan, column plan, operands) where a plan is (sizes[4], [strides[4] per operand], ndim);
    operands are made contiguous only if a side keeps more than 4 dims after collapsing."""
    nd = len(shape)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        red = list(range(nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        for d in dims:
            if not -max(nd, 1) <= d < max(nd, 1):
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {d})")
        red = sorted({d % max(nd, 1) for d in dims}) if nd else []
    kept = [d for d in range(nd) if d not in red]
    for attempt in range(2):
        st = [list(t.expand(shape).stride()) for t in operands]
        rows = _collapse([shape[d] for d in kept], [[s[d] for d in kept] for s in st])
        cols = _collapse([shape[d] for d in red], [[s[d] for d in red] for s in st])
        if rows is not None and cols is not None:
            break
        operands = [t.expand(shape).contiguous() for t in operands]
    M = 1
    for d in kept:
        M *= shape[d]
    N = 1
    for d in red:
        N *= shape[d]
    return M, N, red, rows, cols, operands


def _reduce_grid(M, N, max_tile=4096):
    """Tile and split: BLOCK_N columns by BLOCK_M rows (about `max_tile` elements per step), and
    SPLIT programs per row block when there are too few row blocks to fill the GPU (each split
    streams a `chunk` of at least 8K columns, two tiles: mid-size rows spread over many SMs
    instead of a few long sequential sweeps). Returns BLOCK_M, BLOCK_N, SPLIT, chunk, warps."""
    BLOCK_N = min_(triton.next_power_of_2(max(N, 1)), max_tile)
    if M >= 1024:
        # Plenty of rows: 128-column tiles (one warp's width) and up to 32 rows per program, so
        # the per-row combine after the sweep is a warp shuffle, not a block-wide reduction.
        BLOCK_N = min_(BLOCK_N, 128)
    BLOCK_M = max(1, min_(triton.next_power_of_2(max(M, 1)), max_tile // BLOCK_N))
    row_blocks = triton.cdiv(M, BLOCK_M)
    split = max(1, min_(triton.cdiv(N, 2 * max_tile), (4 * 132) // row_blocks))
    chunk = triton.cdiv(triton.cdiv(N, split), BLOCK_N) * BLOCK_N
    split = triton.cdiv(N, chunk) if N else 1
    warps = 8 if BLOCK_M * BLOCK_N >= 4096 else 4
    return BLOCK_M, BLOCK_N, split, chunk, warps


def _needs_i64(M, N, plans):
    """True when some offset may pass 2**31 (then kernels compute offsets in int64)."""
    span = 0
    for sizes, st, _ in plans:
        for s_ in st:
            span += max(abs(s) * (d - 1) for s, d in zip(s_, sizes))
    return max(M * N, span) + 8192 >= 2**31

@triton.jit
def _min_kernel(x_ptr, pval_ptr, pidx_ptr, pnan_ptr, y_ptr, yi_ptr, M, N, chunk, highest,
                   RS1, RS2, RS3, rs0, rs1, rs2, rs3, CS1, CS2, CS3, cs0, cs1, cs2, cs3,
                   RNDIM: tl.constexpr, CNDIM: tl.constexpr, IS_FLOAT: tl.constexpr,
                   FINAL: tl.constexpr, I64: tl.constexpr, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    val_t = pval_ptr.dtype.element_ty
    big: tl.constexpr = 2**62
    pid_s = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols0 = tl.arange(0, BLOCK_N)
    if I64:
        rows = rows.to(tl.int64)
        cols0 = cols0.to(tl.int64)
    rmask = rows < M
    roff = _strided(rows, RS1, RS2, RS3, rs0, rs1, rs2, rs3, RNDIM)
    start = pid_s * chunk
    end = tl.minimum(chunk, N - start)
    # Per-lane running state over the column sweep (elementwise only: no reduction inside the
    # loop); each lane keeps the first column holding its extreme, and the lanes are combined
    # once after the loop (the extreme, then the smallest column holding it).
    if I64:
        BIG: tl.constexpr = 2**62
        idx_t: tl.constexpr = tl.int64
    else:
        BIG: tl.constexpr = 2**31 - 1
        idx_t: tl.constexpr = tl.int32
    bv = tl.full([BLOCK_M, BLOCK_N], highest, val_t)
    bi = tl.full([BLOCK_M, BLOCK_N], BIG, idx_t)
    nan_l = tl.full([BLOCK_M, BLOCK_N], BIG, idx_t)
    for c in range(0, end, BLOCK_N):
        cols = start + c + cols0
        coff = _strided(cols, CS1, CS2, CS3, cs0, cs1, cs2, cs3, CNDIM)
        mask = rmask[:, None] & (cols < N)[None, :]
        v = tl.load(x_ptr + roff[:, None] + coff[None, :], mask=mask, other=highest).to(val_t)
        if IS_FLOAT:
            isnan = v != v
            nan_l = tl.minimum(nan_l, tl.where(isnan, cols[None, :].to(idx_t), BIG))
            v = tl.where(isnan, highest, v)
        better = v < bv
        bv = tl.where(better, v, bv)
        bi = tl.where(better, cols[None, :].to(idx_t), bi)
    best = tl.min(bv, axis=1)
    bi = tl.min(tl.where(bv == best[:, None], bi, BIG), axis=1)
    # A row whose every element equals the sentinel kept no column: its answer is the chunk's first.
    best_i = tl.where(bi == BIG, start, bi).to(tl.int64)
    nan_r = tl.min(nan_l, axis=1)
    nan_i = tl.where(nan_r == BIG, big, nan_r.to(tl.int64))
    if FINAL:
        val = best.to(y_ptr.dtype.element_ty)
        if IS_FLOAT:
            val = tl.where(nan_i < big, float("nan"), val)
        tl.store(y_ptr + rows, val, mask=rmask)
        tl.store(yi_ptr + rows, tl.where(nan_i < big, nan_i, best_i), mask=rmask)
    else:
        p = rows * tl.num_programs(1) + pid_s
        tl.store(pval_ptr + p, best, mask=rmask)
        tl.store(pidx_ptr + p, best_i, mask=rmask)
        tl.store(pnan_ptr + p, nan_i, mask=rmask)


@triton.jit
def _min_partials_kernel(pval_ptr, pidx_ptr, pnan_ptr, y_ptr, yi_ptr, M, SPLIT, highest,
                         IS_FLOAT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr):
    big: tl.constexpr = 2**62
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    s = tl.arange(0, BLOCK_S)
    mask = (rows < M)[:, None] & (s < SPLIT)[None, :]
    p = rows[:, None] * SPLIT + s[None, :]
    v = tl.load(pval_ptr + p, mask=mask, other=highest)
    i = tl.load(pidx_ptr + p, mask=mask, other=big)
    nan_i = tl.min(tl.load(pnan_ptr + p, mask=mask, other=big), axis=1)
    m = tl.min(v, axis=1)
    best_i = tl.min(tl.where((v == m[:, None]) & mask, i, big), axis=1)
    val = m.to(y_ptr.dtype.element_ty)
    if IS_FLOAT:
        val = tl.where(nan_i < big, float("nan"), val)
    tl.store(y_ptr + rows, val, mask=rows < M)
    tl.store(yi_ptr + rows, tl.where(nan_i < big, nan_i, best_i), mask=rows < M)


def min(input_tensor, dim, keepdim=False):  # noqa: A001 - the task's entry name
    x = input_tensor
    if x.dtype.is_complex or x.dtype == torch.bool:
        raise RuntimeError(f"min: {x.dtype} input is not supported")
    if x.dim() == 0:
        x = x.reshape(1)
    M, N, red, rows, cols, (xv,) = _reduce_plan(x.shape, [x], dim)
    if N == 0:
        raise IndexError("min(): Expected reduction dim to have non-zero size.")
    is_float = x.dtype.is_floating_point
    val_dtype = torch.float64 if x.dtype == torch.float64 else (
        torch.float32 if is_float else torch.int64)
    highest = float("inf") if is_float else 2**63 - 1
    kept = [s for d, s in enumerate(x.shape) if d not in red]
    y = torch.empty(kept, dtype=x.dtype, device=x.device)
    yi = torch.empty(kept, dtype=torch.int64, device=x.device)
    if M:
        BLOCK_M, BLOCK_N, split, chunk, warps = _reduce_grid(M, N)
        final = split == 1
        size = M * split if not final else 1
        pval = torch.empty(size, dtype=val_dtype, device=x.device)
        pidx = torch.empty(size, dtype=torch.int64, device=x.device)
        pnan = torch.empty(size, dtype=torch.int64, device=x.device)
        _min_kernel[(triton.cdiv(M, BLOCK_M), split)](
            xv, pval, pidx, pnan, y, yi, M, N, chunk, highest, *rows[0][1:], *rows[1][0],
            *cols[0][1:], *cols[1][0], RNDIM=rows[2], CNDIM=cols[2], IS_FLOAT=is_float,
            FINAL=final, I64=_needs_i64(M, N, [rows, cols]), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
            num_warps=warps)
        if not final:
            BLOCK_S = triton.next_power_of_2(split)
            bm = max(1, min_(triton.next_power_of_2(M), 4096 // BLOCK_S))
            _min_partials_kernel[(triton.cdiv(M, bm),)](pval, pidx, pnan, y, yi, M, split, highest,
                                                        IS_FLOAT=is_float, BLOCK_M=bm,
                                                        BLOCK_S=BLOCK_S, num_warps=4)
    if input_tensor.dim() == 0:
        return y.reshape(()), yi.reshape(())
    if keepdim:
        shape = [1 if d in red else s for d, s in enumerate(x.shape)]
        y, yi = y.reshape(shape), yi.reshape(shape)
    return y, yi
