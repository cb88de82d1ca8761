"""Sum over one or more dimensions (KernelBench-X Reduce/sum.py), torch.sum semantics.

The reduced dimensions are mapped onto a [outer, R, inner] view without copying whenever they are
adjacent in a contiguous tensor (any other layout is permuted into [kept..., reduced...] first):

* inner == 1 (reducing trailing dims, the common case, and the 1-D perf sweep):
  `_sum_rows_kernel` reduces BLOCK_M rows x BLOCK_N columns tiles with a per-lane accumulator
  (one tree reduction at the end).
* inner > 1 (e.g. dim=0 of a matrix): `_sum_cols_kernel` walks R with [BLOCK_R, BLOCK_C] tiles,
  loads coalesced along the contiguous inner axis, and reduces along R.

When the kept elements alone cannot fill the GPU (a 1-D sum of 2**27 elements is one row; dim=0 of
an 8192 x 8192 matrix is 64 column blocks), R is split over more programs that write float64
(int64) partial sums, and the same kernel reduces the partials. No atomics: results are
deterministic.

Accuracy: the tests compare sums of 8192 randn values, which can land near zero, with
atol = 1e-5: the size of float32 summation error itself, so a float32 accumulator that adds in
another order than torch's misses now and then. Floating types are therefore accumulated in
float64 (the result is within a rounding of the exact sum); the kernel is bound by memory
traffic, and on an H200 the float64 adds and conversions cost about 2% against a float32
accumulator. Integers and bool are summed in int64 (torch.sum promotes them to int64).
With `dtype` the input is cast to it first.
Loop trip counts are compile-time constants (see Math/softmax.py for why).
"""

import torch
import triton
import triton.language as tl

_TL_DTYPE = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
    torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
}


@triton.jit
def _sum_rows_kernel(x_ptr, y_ptr, n_rows, n_cols,
                     CAST: tl.constexpr, ACC: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     CHUNKS_PER_SPLIT: tl.constexpr):
    # Program (pid_m, split) sums columns [split * CHUNKS_PER_SPLIT * BLOCK_N, ...) of BLOCK_M rows
    # and stores y[row, split] (y has num_programs(1) columns; 1 when the rows are not split).
    pid_m = tl.program_id(0)
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_off = rows.to(tl.int64) * n_cols
    col0 = split.to(tl.int64) * (CHUNKS_PER_SPLIT * BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
    for i in range(CHUNKS_PER_SPLIT):
        c = col0 + i * BLOCK_N + cols
        mask = row_mask[:, None] & (c < n_cols)[None, :]
        x = tl.load(x_ptr + row_off[:, None] + c[None, :], mask=mask, other=0)
        acc += x.to(CAST).to(ACC)
    total = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows.to(tl.int64) * n_splits + split, total.to(y_ptr.dtype.element_ty),
             mask=row_mask)


@triton.jit
def _sum_cols_kernel(x_ptr, y_ptr, n_red, n_inner,
                     CAST: tl.constexpr, ACC: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                     CHUNKS_PER_SPLIT: tl.constexpr):
    # x viewed as [outer, n_red, n_inner]. Program (pid, split) sums rows
    # [split * CHUNKS_PER_SPLIT * BLOCK_R, ...) of one block of columns of one outer slice into
    # y[outer, split, cols] (y is [outer, inner] when not split). 1-D over (outer, column block)
    # on axis 0 because CUDA limits grid y/z to 65535.
    pid = tl.program_id(0)
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    n_col_blocks = tl.cdiv(n_inner, BLOCK_C)
    pid_c = pid % n_col_blocks
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cols < n_inner
    base = outer * n_red * n_inner
    r0 = split * (CHUNKS_PER_SPLIT * BLOCK_R)
    r = tl.arange(0, BLOCK_R)
    acc = tl.zeros([BLOCK_R, BLOCK_C], ACC)
    for i in range(CHUNKS_PER_SPLIT):
        rr = r0 + i * BLOCK_R + r
        mask = (rr < n_red)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + base + rr.to(tl.int64)[:, None] * n_inner + cols[None, :],
                    mask=mask, other=0)
        acc += x.to(CAST).to(ACC)
    total = tl.sum(acc, axis=0)
    tl.store(y_ptr + (outer * n_splits + split) * n_inner + cols, total.to(y_ptr.dtype.element_ty),
             mask=col_mask)


_SM_COUNT = {}


def _num_sms(device):
    if device.type != "cuda":
        return 4
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNT:  # keep the per-call host work small
        _SM_COUNT[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNT[index]


def _prod(vals):
    p = 1
    for v in vals:
        p *= v
    return p


# Launch shape, tuned on an H200: 4096-element tiles with 8 warps (16 values per thread, 16 KB of
# float32 in flight per step), and splitting a reduction only when it is long enough to pay for
# the second launch, aiming at about 4 programs per SM.
_TILE = 4096
_MIN_CHUNKS_TO_SPLIT = 32
_PROGRAMS_PER_SM = 4


def _splits(programs, n_chunks, device):
    """(splits, chunks per split) so that about _PROGRAMS_PER_SM programs per SM are in flight."""
    target = _PROGRAMS_PER_SM * _num_sms(device)
    if programs >= target or n_chunks < _MIN_CHUNKS_TO_SPLIT:
        return 1, n_chunks
    splits = min(triton.cdiv(target, programs), n_chunks // 4)
    per_split = triton.cdiv(n_chunks, splits)
    return triton.cdiv(n_chunks, per_split), per_split


def _reduce(src, out, outer, red, inner, cast, acc, acc_torch):
    """out[outer, inner] = src[outer, red, inner].sum(1), src contiguous."""
    if inner == 1:
        block_n = min(_TILE, triton.next_power_of_2(red))
        block_m = max(1, min(_TILE // block_n, triton.next_power_of_2(outer)))
        row_blocks = triton.cdiv(outer, block_m)
        splits, per_split = _splits(row_blocks, triton.cdiv(red, block_n), out.device)
        dst = out if splits == 1 else torch.empty((outer, splits), dtype=acc_torch, device=out.device)
        _sum_rows_kernel[(row_blocks, splits)](
            src, dst, outer, red, CAST=cast, ACC=acc, BLOCK_M=block_m, BLOCK_N=block_n,
            CHUNKS_PER_SPLIT=per_split, num_warps=8 if block_m * block_n >= 2048 else 4)
        if splits > 1:
            _reduce(dst, out, outer, splits, 1, acc, acc, acc_torch)
        return
    block_c = min(128, triton.next_power_of_2(inner))
    block_r = max(1, min(triton.next_power_of_2(red), _TILE // block_c))
    programs = triton.cdiv(inner, block_c) * outer
    splits, per_split = _splits(programs, triton.cdiv(red, block_r), out.device)
    dst = out if splits == 1 else torch.empty((outer, splits, inner), dtype=acc_torch, device=out.device)
    _sum_cols_kernel[(programs, splits)](
        src, dst, red, inner, CAST=cast, ACC=acc, BLOCK_R=block_r, BLOCK_C=block_c,
        CHUNKS_PER_SPLIT=per_split, num_warps=8 if block_r * block_c >= 2048 else 4)
    if splits > 1:
        _reduce(dst, out, outer, splits, inner, acc, acc, acc_torch)


def sum(input, dim, keepdim=False, dtype=None):
    x = input
    ndim = x.dim()
    if dim is None:
        dims = list(range(ndim))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
        if len(dims) == 0:
            dims = list(range(ndim))
    rank = max(ndim, 1)
    norm = []
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
        d = d % rank
        if d in norm:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        norm.append(d)
    dims = sorted(norm)

    if dtype is not None:
        out_dtype = dtype
    elif x.dtype == torch.bool or not (x.dtype.is_floating_point or x.dtype.is_complex):
        out_dtype = torch.int64
    else:
        out_dtype = x.dtype
    if out_dtype not in _TL_DTYPE or out_dtype == torch.bool or x.dtype not in _TL_DTYPE:
        raise TypeError(f"sum: unsupported dtype {x.dtype} -> {out_dtype}")
    acc_torch = torch.float64 if out_dtype.is_floating_point else torch.int64
    acc = _TL_DTYPE[acc_torch]
    cast = _TL_DTYPE[out_dtype]

    shape = list(x.shape) if ndim > 0 else [1]
    kept = [d for d in range(len(shape)) if d not in dims]
    if keepdim:
        out_shape = [1 if d in dims else s for d, s in enumerate(shape)] if ndim > 0 else []
    else:
        out_shape = [shape[d] for d in kept] if ndim > 0 else []
    out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
    if out.numel() == 0:
        return out

    if x.is_contiguous() and dims == list(range(dims[0], dims[-1] + 1)):
        src = x
        outer = _prod(shape[:dims[0]])
        red = _prod(shape[dims[0]:dims[-1] + 1])
        inner = _prod(shape[dims[-1] + 1:])
    else:
        src = x.reshape(shape).permute(kept + dims).contiguous()
        outer = _prod([shape[d] for d in kept])
        red = _prod([shape[d] for d in dims])
        inner = 1
    if red == 0:
        out.zero_()  # an empty sum is 0
        return out
    _reduce(src, out, outer, red, inner, cast, acc, acc_torch)
    return out
