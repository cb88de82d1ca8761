"""Fusion/fused_repeat_interleave_log_softmax.py: log_softmax(repeat_interleave(input, repeats, dim))
without materialising the repeated tensor: the log-sum-exp of r is computed from the input with
each element weighted by its repeat count, lse = m + log(sum_i c_i exp(x_i - m)), and each output
element is x_{src(j)} - lse, written once (eager writes r, then log_softmax reads it twice and
writes the result: for the perf sweep's repeats=2, 28 bytes per input element of traffic against
this kernel's 12).

Design: rows are the dims other than `dim` (none for dim=None, where the input is walked flat in
row-major order), columns the input's positions along `dim`; both sides are collapsed (size-1 dims
dropped, jointly contiguous dims merged) and addressed through the input's strides, so
non-contiguous inputs need no copy. Launch 1 streams the columns in [BLOCK_M, BLOCK_N] tiles of
4096 elements with an online, count-weighted log-sum-exp (a zero count drops its element, from the
max as well); when the rows cannot fill the 132 SMs (the perf sweep: one row of up to 8M) the
columns are split over up to 4 x 132 programs writing (max, sum) partials. Launch 2 walks the
output in the same tiles, recombines a row's partials in registers (at most 528, from L2), maps
each output column j to its source i (j // repeats for an int, a binary search over the exclusive
prefix sum of the counts for a tensor) and stores x_i - lse: coalesced 128-bit stores. Tensor
repeats add one small scan launch for the prefix sums (the output length, like eager's, needs one
device-to-host read of the total unless output_size is given). Math is float32, or float64 when
`dtype` asks for it.
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

@triton.jit
def _lse_partial_kernel(x_ptr, c_ptr, pm_ptr, ps_ptr, M, N, chunk, reps, RS1, RS2, RS3,
                        rs0, rs1, rs2, rs3, CS1, CS2, CS3, cs0, cs1, cs2, cs3, ccs,
                        RNDIM: tl.constexpr, CNDIM: tl.constexpr, C_TENSOR: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    ct = pm_ptr.dtype.element_ty
    pid_s = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    roff = _strided(rows, RS1, RS2, RS3, rs0, rs1, rs2, rs3, RNDIM)
    start = pid_s * chunk
    m = tl.full([BLOCK_M], -float("inf"), ct)
    s = tl.zeros([BLOCK_M], ct)
    for c in range(0, chunk, BLOCK_N):
        cols = start + c + tl.arange(0, BLOCK_N)
        cmask = cols < N
        if C_TENSOR:
            cnt = tl.load(c_ptr + cols * ccs, mask=cmask, other=0).to(ct)
        else:
            cnt = tl.where(cmask, reps, 0).to(ct)
        mask = rmask[:, None] & (cnt > 0)[None, :]
        coff = _strided(cols, CS1, CS2, CS3, cs0, cs1, cs2, cs3, CNDIM)
        x = tl.load(x_ptr + roff[:, None] + coff[None, :], mask=mask, other=-float("inf")).to(ct)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        e = tl.where(mask, cnt[None, :] * tl.exp(x - m_safe[:, None]), 0.0)
        s = s * tl.exp(m - m_safe) + tl.sum(e, axis=1)
        m = m_new
    p = rows * tl.num_programs(1) + pid_s
    tl.store(pm_ptr + p, m, mask=rmask)
    tl.store(ps_ptr + p, s, mask=rmask)


@triton.jit
def _scan_kernel(c_ptr, off_ptr, N, ccs, BLOCK: tl.constexpr):
    # off[0] = 0, off[i + 1] = c[0] + ... + c[i], in one program (the counts are one per slice).
    total = tl.zeros([], tl.int64)
    tl.store(off_ptr, total)
    for c0 in range(0, N, BLOCK):
        i = c0 + tl.arange(0, BLOCK)
        cnt = tl.load(c_ptr + i * ccs, mask=i < N, other=0).to(tl.int64)
        inc = tl.cumsum(cnt, axis=0) + total
        tl.store(off_ptr + 1 + i, inc, mask=i < N)
        total += tl.sum(cnt, axis=0)


@triton.jit
def _write_kernel(x_ptr, off_ptr, pm_ptr, ps_ptr, y_ptr, M, N, T, reps, SPLIT, RS1, RS2, RS3,
                  rs0, rs1, rs2, rs3, ys0, ys1, ys2, ys3, CS1, CS2, CS3, cs0, cs1, cs2, cs3, ysc,
                  RNDIM: tl.constexpr, CNDIM: tl.constexpr, C_TENSOR: tl.constexpr,
                  LOG2N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    ct = pm_ptr.dtype.element_ty
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    sp = tl.arange(0, BLOCK_S)
    pmask = rmask[:, None] & (sp < SPLIT)[None, :]
    pm = tl.load(pm_ptr + rows[:, None] * SPLIT + sp[None, :], mask=pmask, other=-float("inf"))
    ps = tl.load(ps_ptr + rows[:, None] * SPLIT + sp[None, :], mask=pmask, other=0.0)
    m = tl.max(pm, axis=1)
    m_safe = tl.where(m == -float("inf"), 0.0, m)
    s = tl.sum(ps * tl.exp(pm - m_safe[:, None]), axis=1)
    lse = m_safe + tl.log(s)
    j = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    jmask = j < T
    if C_TENSOR:
        lo = tl.zeros([BLOCK_N], tl.int64)
        hi = tl.zeros([BLOCK_N], tl.int64) + N
        for _ in tl.static_range(LOG2N):
            mid = (lo + hi + 1) // 2
            pred = tl.load(off_ptr + mid, mask=jmask & (mid <= N), other=0) <= j
            lo = tl.where(pred & (mid <= hi), mid, lo)
            hi = tl.where(pred | (mid > hi), hi, mid - 1)
        src = lo
    else:
        src = j // reps
    roff = _strided(rows, RS1, RS2, RS3, rs0, rs1, rs2, rs3, RNDIM)
    yoff = _strided(rows, RS1, RS2, RS3, ys0, ys1, ys2, ys3, RNDIM)
    coff = _strided(src, CS1, CS2, CS3, cs0, cs1, cs2, cs3, CNDIM)
    mask = rmask[:, None] & jmask[None, :]
    x = tl.load(x_ptr + roff[:, None] + coff[None, :], mask=mask, other=0.0).to(ct)
    tl.store(y_ptr + yoff[:, None] + j[None, :] * ysc, (x - lse[:, None]).to(y_ptr.dtype.element_ty),
             mask=mask)


def fused_repeat_interleave_log_softmax(input, repeats, dim=None, *, output_size=None,
                                        dtype=None, out=None):
    out_dtype = dtype if dtype is not None else input.dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError(f"log_softmax: expected a floating-point dtype, got {out_dtype}")
    ct = torch.float64 if out_dtype == torch.float64 else torch.float32
    x = input.reshape(1) if input.dim() == 0 else input
    if dim is None:
        kept, red = [], list(range(x.dim()))
    else:
        d = dim % x.dim()
        kept, red = [i for i in range(x.dim()) if i != d], [d]
    N = 1
    for i in red:
        N *= x.shape[i]
    M = 1
    for i in kept:
        M *= x.shape[i]
    c_tensor = isinstance(repeats, torch.Tensor) and repeats.dim() > 0
    if c_tensor:
        if repeats.numel() != N and repeats.numel() != 1:
            raise RuntimeError(f"repeats must have the same size as input along dim ({N}), got "
                               f"{repeats.numel()}")
        if repeats.numel() == 1:
            c_tensor, reps, cnts = False, int(repeats.reshape(())), None
        else:
            cnts, reps = repeats.reshape(-1), 0
    else:
        reps, cnts = int(repeats), None
    if not c_tensor and reps < 0:
        raise RuntimeError("repeats can not be negative")
    dev = input.device
    if c_tensor:
        offs = torch.empty(N + 1, dtype=torch.int64, device=dev)
        _scan_kernel[(1,)](cnts, offs, N, cnts.stride(0), BLOCK=1024, num_warps=4)
        T = int(output_size) if output_size is not None else int(offs[N])
    else:
        offs, T = None, N * reps
    shape = [x.shape[i] for i in kept] + [T] if dim is not None else [T]
    if dim is not None:
        shape = list(x.shape)
        shape[red[0]] = T
    y = torch.empty(shape, dtype=out_dtype, device=dev)
    if M == 0 or T == 0:
        return y if out is None else out.copy_(y)
    xs = list(x.stride())
    ym = y if dim is not None else y.reshape(1, T)
    ys = [ym.stride(i) for i in kept] if dim is not None else []
    rows = _collapse([x.shape[i] for i in kept], [[xs[i] for i in kept], ys])
    cols = _collapse([x.shape[i] for i in red], [[xs[i] for i in red]])
    if rows is None or cols is None:
        raise NotImplementedError("repeat_interleave_log_softmax: more than 4 non-mergeable dims")
    ysc = y.stride(red[0]) if dim is not None else 1
    BLOCK_N = min(triton.next_power_of_2(max(N, 1)), 4096)
    BLOCK_M = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_N))
    row_blocks = triton.cdiv(M, BLOCK_M)
    split = max(1, min(triton.cdiv(N, 4 * 4096), (4 * 132) // row_blocks))
    chunk = triton.cdiv(triton.cdiv(N, split), BLOCK_N) * BLOCK_N
    split = triton.cdiv(N, chunk)
    pm = torch.empty(M * split, dtype=ct, device=dev)
    ps = torch.empty(M * split, dtype=ct, device=dev)
    c_arg = cnts if c_tensor else pm
    _lse_partial_kernel[(row_blocks, split)](
        x, c_arg, pm, ps, M, N, chunk, reps, *rows[0][1:], *rows[1][0], *cols[0][1:], *cols[1][0],
        cnts.stride(0) if c_tensor else 0, RNDIM=rows[2], CNDIM=cols[2], C_TENSOR=c_tensor,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_M * BLOCK_N >= 4096 else 4)
    BLOCK_S = triton.next_power_of_2(split)
    WN = min(triton.next_power_of_2(T), 4096)
    WM = max(1, min(triton.next_power_of_2(M), 4096 // WN))
    _write_kernel[(triton.cdiv(M, WM), triton.cdiv(T, WN))](
        x, offs if c_tensor else pm, pm, ps, ym, M, N, T, max(reps, 1), split, *rows[0][1:],
        *rows[1][0], *rows[1][1], *cols[0][1:], *cols[1][0], ysc, RNDIM=rows[2], CNDIM=cols[2],
        C_TENSOR=c_tensor, LOG2N=max(1, (N + 1).bit_length()), BLOCK_M=WM, BLOCK_S=BLOCK_S,
        BLOCK_N=WN, num_warps=8 if WM * WN >= 4096 else 4)
    if out is not None:
        return out.copy_(y)
    return y
