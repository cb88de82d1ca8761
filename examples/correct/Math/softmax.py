"""Softmax along any dimension (KernelBench-X Math/softmax.py).

Three Triton kernels, chosen by the shape of the softmax dimension:

* `_softmax_rows_kernel`: the dimension is the innermost one and short enough to hold whole rows in
  registers (<= 32768 fp32 values): one read, one write, several rows per program for short rows.
* `_softmax_rows_online_kernel`: innermost dimension, long rows (up to 524288 and beyond): one
  program per row, an online (running max / rescaled sum) pass over the row in chunks, then a
  second pass that writes exp(x - max) / sum.
* `_softmax_cols_kernel`: the dimension is not the innermost one (dim=0 of a matrix, ...): the
  tensor is viewed as [outer, N, inner] and each program owns a block of `inner` columns, so every
  load is coalesced along the contiguous axis; online max / sum over N, then a write pass.

Math is done in float32 (float64 for float64 outputs). With `dtype` the input is cast to it first,
as torch.softmax does.

Loop trip counts are compile-time constants (N_CHUNKS): the loops stay `scf.for` loops that Triton
software-pipelines on the GPU, and they also run under TRITON_INTERPRET=1 with NumPy >= 2.4, where a
`range()` over a runtime kernel argument fails (the interpreter passes scalars as 1-element arrays).
The cost is one compilation per distinct chunk count.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols,
                         ACC: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    offs = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
    # torch.softmax(x, dtype=d) casts x to d first, then computes in (at least) float32.
    x = x.to(y_ptr.dtype.element_ty).to(ACC)
    row_max = tl.max(x, axis=1)
    row_max = tl.where(row_max == float("-inf"), 0.0, row_max)  # fully masked (padding) rows
    e = tl.exp(x - row_max[:, None])
    denom = tl.sum(e, axis=1)
    y = e / denom[:, None]
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_rows_online_kernel(x_ptr, y_ptr, n_cols,
                                ACC: tl.constexpr, BLOCK_N: tl.constexpr, N_CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    cols = tl.arange(0, BLOCK_N)

    # Pass 1: per-lane running max and sum of exp(x - running max); no cross-lane sync in the loop.
    m = tl.full([BLOCK_N], float("-inf"), ACC)
    s = tl.zeros([BLOCK_N], ACC)
    for i in range(N_CHUNKS):
        offs = i * BLOCK_N + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        x = x.to(y_ptr.dtype.element_ty).to(ACC)
        m_new = tl.maximum(m, x)
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # lanes that saw only padding
        s = s * tl.exp(m - m_safe) + tl.exp(x - m_safe)
        m = m_new
    row_max = tl.max(m, axis=0)
    row_max = tl.where(row_max == float("-inf"), 0.0, row_max)
    denom = tl.sum(s * tl.exp(m - row_max), axis=0)

    # Pass 2: normalise and write.
    for i in range(N_CHUNKS):
        offs = i * BLOCK_N + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=float("-inf"))
        x = x.to(y_ptr.dtype.element_ty).to(ACC)
        y = tl.exp(x - row_max) / denom
        tl.store(y_row + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_cols_kernel(x_ptr, y_ptr, n_red, n_inner,
                         ACC: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                         N_CHUNKS: tl.constexpr):
    # x viewed as [outer, n_red, n_inner], softmax over the middle axis. 1-D grid (CUDA limits
    # grid y/z to 65535): program pid owns column block pid % n_col_blocks of slice pid // n_col_blocks.
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_inner, BLOCK_C)
    pid_c = pid % n_col_blocks
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cols < n_inner
    base = outer * n_red * n_inner
    r = tl.arange(0, BLOCK_R)

    m = tl.full([BLOCK_C], float("-inf"), ACC)
    s = tl.zeros([BLOCK_C], ACC)
    for i in range(N_CHUNKS):
        rr = i * BLOCK_R + r
        mask = (rr < n_red)[:, None] & col_mask[None, :]
        offs = base + rr.to(tl.int64)[:, None] * n_inner + cols[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
        x = x.to(y_ptr.dtype.element_ty).to(ACC)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[None, :]), axis=0)
        m = m_new
    m = tl.where(m == float("-inf"), 0.0, m)

    for i in range(N_CHUNKS):
        rr = i * BLOCK_R + r
        mask = (rr < n_red)[:, None] & col_mask[None, :]
        offs = base + rr.to(tl.int64)[:, None] * n_inner + cols[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
        x = x.to(y_ptr.dtype.element_ty).to(ACC)
        y = tl.exp(x - m[None, :]) / s[None, :]
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


_SM_COUNT = {}


def _num_sms(device):
    if device.type != "cuda":
        return 4
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNT:  # keep the per-call host work small
        _SM_COUNT[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNT[index]


# Rows up to this many bytes of float32/float64 values stay in registers (one read, one write):
# 32768 floats over 16 warps is 64 values per thread.
_MAX_FUSED_ROW_BYTES = 32768 * 4


def softmax(input, dim, dtype=None):
    out_dtype = input.dtype if dtype is None else dtype
    if not out_dtype.is_floating_point:
        raise TypeError(f"softmax: expected a floating point dtype, got {out_dtype}")
    x = input.contiguous()
    shape = x.shape
    ndim = max(x.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    d = dim % ndim
    y = torch.empty(shape, dtype=out_dtype, device=x.device)
    if y.numel() == 0:
        return y
    sizes = list(shape) if x.dim() > 0 else [1]
    n = sizes[d]
    outer = 1
    for v in sizes[:d]:
        outer *= v
    inner = 1
    for v in sizes[d + 1:]:
        inner *= v

    acc = tl.float64 if out_dtype == torch.float64 else tl.float32
    acc_bytes = 8 if out_dtype == torch.float64 else 4

    if inner == 1:
        block_n = triton.next_power_of_2(n)
        if block_n * acc_bytes <= _MAX_FUSED_ROW_BYTES:
            # Several short rows per program so every program moves a reasonable amount of data.
            block_m = max(1, min(4096 // block_n, triton.next_power_of_2(outer)))
            tile = block_m * block_n
            num_warps = 16 if tile >= 8192 else 8 if tile >= 2048 else 4 if tile >= 512 else 2
            grid = (triton.cdiv(outer, block_m),)
            _softmax_rows_kernel[grid](x, y, outer, n, ACC=acc, BLOCK_M=block_m, BLOCK_N=block_n,
                                       num_warps=num_warps)
        else:
            block_n = 4096 if acc_bytes == 4 else 2048
            _softmax_rows_online_kernel[(outer,)](x, y, n, ACC=acc, BLOCK_N=block_n,
                                                  N_CHUNKS=triton.cdiv(n, block_n), num_warps=8)
    else:
        # Narrow column blocks when there are few columns, so that there are enough programs to
        # occupy the GPU (>= 16 columns keeps each row segment at least one 64-byte access).
        sms = _num_sms(x.device)
        block_c = min(128, triton.next_power_of_2(inner))
        while block_c > 16 and outer * triton.cdiv(inner, block_c) < 2 * sms:
            block_c //= 2
        block_r = max(1, min(triton.next_power_of_2(n), 4096 // block_c))
        num_warps = 8 if block_r * block_c >= 4096 else 4
        grid = (triton.cdiv(inner, block_c) * outer,)
        _softmax_cols_kernel[grid](x, y, n, inner, ACC=acc, BLOCK_R=block_r, BLOCK_C=block_c,
                                   N_CHUNKS=triton.cdiv(n, block_r), num_warps=num_warps)
    return y
