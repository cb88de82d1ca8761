"""Fusion/fused_add_mean.py: mean(input + alpha * other) over `dim` (all elements by default) in
one streaming pass: the scaled add is done in registers and never written (eager materialises
r = input + alpha * other, then reads it back for the mean: 12 bytes per element of traffic
against this kernel's 8).

Design: the reduction is viewed as an [M, N] matrix, kept dims as rows and reduced dims as
columns, each side collapsed (size-1 dims dropped, jointly contiguous dims merged) and both
operands addressed through their own strides, so a broadcast `other` (a row, or a Python number
passed as a kernel scalar) and non-contiguous inputs are read in place with no expand or permute
copy. A program owns BLOCK_M rows and sweeps their columns in [BLOCK_M, BLOCK_N] tiles of 4096
elements (8 warps, 128-bit loads on contiguous columns) with an elementwise accumulator in
registers. When the row blocks cannot fill the 132 SMs (the perf sweep is the dim=None mean of a
1-D pair: one row of up to 128M elements) the columns are split over up to 4 x 132 programs that
write one partial each, and a second small launch adds them in a fixed order and scales by 1/N:
deterministic, no atomics; up to 16K elements take a single launch. The common dim=None case
over contiguous float32 operands (the whole perf sweep) takes one launch at every size instead: up
to 1024 programs (one resident wave of 8-warp programs) each stream a contiguous chunk in 4096-
element steps (one step per program up to 4M elements, so mid sizes cost one memory round trip)
and the last program to finish, found by a ticket counter, adds the partials in index order. Math and accumulation are in
the result dtype (float32, or float64 when `dtype` asks for it).
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
def _add_mean_kernel(x_ptr, o_ptr, part_ptr, y_ptr, M, N, chunk, other_scalar, alpha, scale,
                     RS1, RS2, RS3, rx0, rx1, rx2, rx3, ro0, ro1, ro2, ro3,
                     CS1, CS2, CS3, cx0, cx1, cx2, cx3, co0, co1, co2, co3,
                     RNDIM: tl.constexpr, CNDIM: tl.constexpr, OTHER_IS_TENSOR: tl.constexpr,
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
    xr = _strided(rows, RS1, RS2, RS3, rx0, rx1, rx2, rx3, RNDIM)
    orow = _strided(rows, RS1, RS2, RS3, ro0, ro1, ro2, ro3, RNDIM)
    start = pid_s * chunk
    acc = tl.zeros([BLOCK_M, BLOCK_N], acc_t)
    for c in range(0, chunk, BLOCK_N):
        cols = start + c + cols0
        mask = rmask[:, None] & (cols < N)[None, :]
        xc = _strided(cols, CS1, CS2, CS3, cx0, cx1, cx2, cx3, CNDIM)
        x = tl.load(x_ptr + xr[:, None] + xc[None, :], mask=mask, other=0.0).to(acc_t)
        if OTHER_IS_TENSOR:
            oc = _strided(cols, CS1, CS2, CS3, co0, co1, co2, co3, CNDIM)
            o = tl.load(o_ptr + orow[:, None] + oc[None, :], mask=mask, other=0.0).to(acc_t)
        else:
            o = other_scalar
        acc += tl.where(mask, x + alpha * o, 0.0)
    s = tl.sum(acc, axis=1)
    if FINAL:
        tl.store(y_ptr + rows, (s * scale).to(y_ptr.dtype.element_ty), mask=rmask)
    else:
        tl.store(part_ptr + rows * tl.num_programs(1) + pid_s, s, mask=rmask)


@triton.jit
def _mean_partials_kernel(part_ptr, y_ptr, M, SPLIT, scale, BLOCK_M: tl.constexpr,
                          BLOCK_S: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    s = tl.arange(0, BLOCK_S)
    mask = (rows < M)[:, None] & (s < SPLIT)[None, :]
    p = tl.load(part_ptr + rows[:, None] * SPLIT + s[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, (tl.sum(p, axis=1) * scale).to(y_ptr.dtype.element_ty), mask=rows < M)


@triton.jit
def _add_mean_all_kernel(x_ptr, o_ptr, part_ptr, cnt_ptr, y_ptr, N, chunk, other_scalar, alpha,
                         scale, OTHER_IS_TENSOR: tl.constexpr, SINGLE: tl.constexpr,
                         BLOCK: tl.constexpr, PB: tl.constexpr):
    # dim=None over contiguous operands (the perf sweep) in ONE launch: program p streams
    # elements [p * chunk, (p + 1) * chunk) and writes one partial; the last program to finish
    # (an acq_rel ticket counter) adds the partials in index order, writes the mean and resets
    # the counter for the next call. Deterministic: the partials are summed in a fixed order.
    pid = tl.program_id(0)
    offs0 = tl.arange(0, BLOCK)
    start = pid * chunk
    acc = tl.zeros([BLOCK], tl.float32)
    for c in range(0, chunk, BLOCK):
        offs = start + c + offs0
        mask = offs < N
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        if OTHER_IS_TENSOR:
            o = tl.load(o_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        else:
            o = other_scalar
        acc += tl.where(mask, x + alpha * o, 0.0)
    s = tl.sum(acc, axis=0)
    if SINGLE:
        tl.store(y_ptr, (s * scale).to(y_ptr.dtype.element_ty))
    else:
        nprog = tl.num_programs(0)
        tl.store(part_ptr + pid, s)
        tl.debug_barrier()
        ticket = tl.atomic_add(cnt_ptr, 1, sem="acq_rel")
        if ticket == nprog - 1:
            tl.debug_barrier()
            i = tl.arange(0, PB)
            p = tl.load(part_ptr + i, mask=i < nprog, other=0.0, cache_modifier=".cg")
            tl.store(y_ptr, (tl.sum(p, axis=0) * scale).to(y_ptr.dtype.element_ty))
            tl.store(cnt_ptr, 0)


_SCRATCH = {}
_MAX_PROGS = 1024
_BLOCK_ALL = 4096


def _scratch(device):
    # Per device: the partials of one call and a ticket counter that the last program leaves at 0.
    sc = _SCRATCH.get(device)
    if sc is None:
        sc = _SCRATCH[device] = (torch.empty(_MAX_PROGS, dtype=torch.float32, device=device),
                                 torch.zeros(1, dtype=torch.int32, device=device))
    return sc


def _add_mean_all(input, other, alpha, keepdim, other_is_tensor):
    N = input.numel()
    y = torch.empty((), dtype=input.dtype, device=input.device)
    progs = max(1, min(triton.cdiv(N, _BLOCK_ALL), _MAX_PROGS))
    chunk = triton.cdiv(triton.cdiv(N, progs), _BLOCK_ALL) * _BLOCK_ALL
    progs = max(1, triton.cdiv(N, chunk))
    part, cnt = _scratch(input.device)
    _add_mean_all_kernel[(progs,)](
        input, other if other_is_tensor else input, part, cnt, y, N, chunk,
        0.0 if other_is_tensor else float(other), float(alpha), 1.0 / N if N else float("nan"),
        OTHER_IS_TENSOR=other_is_tensor, SINGLE=progs == 1, BLOCK=_BLOCK_ALL,
        PB=triton.next_power_of_2(progs), num_warps=8)
    return y.reshape([1] * input.dim()) if keepdim else y


def fused_add_mean(input, other, dim=None, alpha=1, keepdim=False, dtype=None, out=None):
    other_is_tensor = isinstance(other, torch.Tensor)
    if (dim is None and dtype is None and out is None and input.dtype == torch.float32
            and input.is_contiguous() and 0 < input.numel() < 2**31 - 2**24
            and (not other_is_tensor or (other.dtype == torch.float32
                                         and other.shape == input.shape
                                         and other.is_contiguous()))
            and (other_is_tensor or type(other) in (int, float))):
        return _add_mean_all(input, other, alpha, keepdim, other_is_tensor)
    r_dtype = torch.result_type(input, other)
    out_dtype = dtype if dtype is not None else r_dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype; got {out_dtype}, "
                           "pass a floating-point dtype")
    shape = torch.broadcast_shapes(input.shape, other.shape) if other_is_tensor else input.shape
    ops = [input, other] if other_is_tensor else [input]
    M, N, red, rows, cols, ops = _reduce_plan(shape, ops, dim)
    if not other_is_tensor:
        rows[1].append([0, 0, 0, 0])
        cols[1].append([0, 0, 0, 0])
    acc_dtype = torch.float64 if out_dtype == torch.float64 else torch.float32
    y = torch.empty([s for d, s in enumerate(shape) if d not in red], dtype=out_dtype,
                    device=input.device)
    scale = 1.0 / N if N else float("nan")
    if M:
        BLOCK_M, BLOCK_N, split, chunk, warps = _reduce_grid(M, N)
        final = split == 1
        part = torch.empty(M * split if not final else 1, dtype=acc_dtype, device=input.device)
        _add_mean_kernel[(triton.cdiv(M, BLOCK_M), split)](
            ops[0], ops[-1], part, y, M, N, chunk, 0.0 if other_is_tensor else float(other),
            float(alpha), scale, *rows[0][1:], *rows[1][0], *rows[1][1], *cols[0][1:],
            *cols[1][0], *cols[1][1], RNDIM=rows[2], CNDIM=cols[2],
            OTHER_IS_TENSOR=other_is_tensor, FINAL=final, I64=_needs_i64(M, N, [rows, cols]),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps)
        if not final:
            BLOCK_S = triton.next_power_of_2(split)
            bm = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_S))
            _mean_partials_kernel[(triton.cdiv(M, bm),)](part, y, M, split, scale, BLOCK_M=bm,
                                                         BLOCK_S=BLOCK_S, num_warps=4)
    if keepdim:
        y = y.reshape([1 if d in red else s for d, s in enumerate(shape)])
    if out is not None:
        return out.copy_(y)
    return y
