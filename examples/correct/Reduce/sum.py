"""Reduce/sum.py: sum over one or more dims (int64 for integer inputs, or `dtype`), one streaming
pass over the input.

Design: the reduction is viewed as an [M, N] matrix, kept dims as rows and reduced dims as
columns, each side collapsed (size-1 dims dropped, jointly contiguous dims merged) and addressed
through the input's own strides, so any dim set and non-contiguous inputs are read in place with no
permute copy. A program owns BLOCK_M rows and sweeps their columns in [BLOCK_M, BLOCK_N] tiles of
4096 elements (8 warps; 16 fp32 per thread, 128-bit loads when columns are contiguous), keeping
an elementwise accumulator in registers and reducing it once at the end. When there are too few
row blocks to fill the 132 SMs (the perf sweep is a full 1-D sum: one row), the columns are split
over up to 4 x 132 programs that each write one partial, and a second small launch adds the
partials in a fixed order: deterministic, no atomics. Sums of at most 16K columns per row take a
single launch. Accumulation is in the result dtype (float32, float64 or int64 exactly); a blocked
order keeps float32 rounding near sqrt(N / 4096) times the per-block error. Eager's torch.sum is
itself one tuned streaming kernel, so the bar here is parity at HBM bandwidth, not a wide margin.
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
    streams a `chunk` of at least 16K columns). Returns BLOCK_M, BLOCK_N, SPLIT, chunk, warps."""
    BLOCK_N = min(triton.next_power_of_2(max(N, 1)), max_tile)
    BLOCK_M = max(1, min(triton.next_power_of_2(max(M, 1)), max_tile // BLOCK_N))
    row_blocks = triton.cdiv(M, BLOCK_M)
    split = max(1, min(triton.cdiv(N, 4 * max_tile), (4 * 132) // row_blocks))
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
def _sum_kernel(x_ptr, part_ptr, y_ptr, M, N, chunk, RS1, RS2, RS3, rs0, rs1, rs2, rs3,
                CS1, CS2, CS3, cs0, cs1, cs2, cs3, RNDIM: tl.constexpr, CNDIM: tl.constexpr,
                FINAL: tl.constexpr, I64: tl.constexpr, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr):
    acc_t = part_ptr.dtype.element_ty
    pid_s = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols0 = tl.arange(0, BLOCK_N)
    if I64:
        rows = rows.to(tl.int64)
        cols0 = cols0.to(tl.int64)
    rmask = rows < M
    roff = _strided(rows, RS1, RS2, RS3, rs0, rs1, rs2, rs3, RNDIM)
    start = pid_s * chunk
    acc = tl.zeros([BLOCK_M, BLOCK_N], acc_t)
    for c in range(0, chunk, BLOCK_N):
        cols = start + c + cols0
        coff = _strided(cols, CS1, CS2, CS3, cs0, cs1, cs2, cs3, CNDIM)
        mask = rmask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + roff[:, None] + coff[None, :], mask=mask, other=0)
        acc += x.to(acc_t)
    s = tl.sum(acc, axis=1)
    if FINAL:
        tl.store(y_ptr + rows, s.to(y_ptr.dtype.element_ty), mask=rmask)
    else:
        tl.store(part_ptr + rows * tl.num_programs(1) + pid_s, s, mask=rmask)


@triton.jit
def _sum_partials_kernel(part_ptr, y_ptr, M, SPLIT, BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    s = tl.arange(0, BLOCK_S)
    mask = (rows < M)[:, None] & (s < SPLIT)[None, :]
    p = tl.load(part_ptr + rows[:, None] * SPLIT + s[None, :], mask=mask, other=0)
    tl.store(y_ptr + rows, tl.sum(p, axis=1).to(y_ptr.dtype.element_ty), mask=rows < M)


def sum(input, dim, keepdim=False, dtype=None):  # noqa: A001 - the task's entry name
    if dtype is not None:
        out_dtype = dtype
    elif input.dtype.is_floating_point or input.dtype.is_complex:
        out_dtype = input.dtype
    else:
        out_dtype = torch.int64
    if out_dtype.is_complex:
        raise TypeError("sum: complex dtypes are not supported by this kernel")
    acc_dtype = torch.float32 if out_dtype in (torch.float16, torch.bfloat16) else out_dtype
    M, N, red, rows, cols, (x,) = _reduce_plan(input.shape, [input], dim)
    out_shape = [1 if d in red else s for d, s in enumerate(input.shape)]
    y = torch.empty([s for d, s in enumerate(input.shape) if d not in red], dtype=out_dtype,
                    device=input.device)
    if M:
        BLOCK_M, BLOCK_N, split, chunk, warps = _reduce_grid(M, N)
        final = split == 1
        part = torch.empty(M * split if not final else 1, dtype=acc_dtype, device=input.device)
        grid = (triton.cdiv(M, BLOCK_M), split)
        _sum_kernel[grid](x, part, y, M, N, chunk, *rows[0][1:], *rows[1][0], *cols[0][1:],
                          *cols[1][0], RNDIM=rows[2], CNDIM=cols[2], FINAL=final,
                          I64=_needs_i64(M, N, [rows, cols]), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                          num_warps=warps)
        if not final:
            BLOCK_S = triton.next_power_of_2(split)
            bm = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_S))
            _sum_partials_kernel[(triton.cdiv(M, bm),)](part, y, M, split, BLOCK_M=bm,
                                                        BLOCK_S=BLOCK_S, num_warps=4)
    return y.reshape(out_shape) if keepdim else y
