"""Reduce/min.py variant: the chunks are merged with `<=` instead of `<` (best_v = m if
m <= best_v), so when the row minimum appears in more than one BLOCK_SIZE (64) chunk, the
position from the LAST such chunk is returned instead of the first occurrence the description
requires. Within a chunk the tie-break is still right, so it only shows on rows longer than 64
with repeated minima. The public-mirroring cases have int64 rows of at most 6 elements and
tie-free float rows, so only kbx's own int64_many_ties_40x70 case (rows of 70 values in [0, 3))
can catch it; a careful judge must fail it.

Otherwise the kernel is Reduce/min.py: `dim` is moved to the end and the input made contiguous as [M, N]; one program
per row loops over N in BLOCK_SIZE chunks, keeping a running (value, index) pair. Within a chunk
the minimum is found with tl.min and its first position as the smallest index holding it; a
chunk replaces the running pair only when its minimum is strictly smaller, so the first
occurrence in the row wins. Values keep the input dtype (compared in it, no down-cast), indices
are int64; keepdim unsqueezes `dim`.
"""
# expect-kernelbenchx: ok
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _min_rows_kernel(x_ptr, val_ptr, idx_ptr, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * N
    first = tl.load(base)
    best_v = first
    best_i = tl.zeros([], dtype=tl.int64)
    for start in range(0, N, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        mask = offs < N
        x = tl.load(base + offs, mask=mask, other=first)
        m = tl.min(x, axis=0)
        cand = tl.where((x == m) & mask, offs, N)
        mi = tl.min(cand, axis=0).to(tl.int64)
        better = m <= best_v
        best_i = tl.where(better, mi, best_i)
        best_v = tl.where(better, m, best_v)
    tl.store(val_ptr + row, best_v)
    tl.store(idx_ptr + row, best_i)


def min(input_tensor, dim, keepdim=False):  # noqa: A001
    x = input_tensor
    nd = x.dim()
    d = dim % nd if nd > 0 else 0
    xp = x.movedim(d, -1).contiguous() if nd > 0 else x.reshape(1)
    N = xp.shape[-1]
    out_shape = list(xp.shape[:-1])
    M = xp.numel() // N
    x2 = xp.reshape(M, N)
    vals = torch.empty(M, dtype=x.dtype, device=x.device)
    idxs = torch.empty(M, dtype=torch.int64, device=x.device)
    BLOCK_SIZE = 64
    if M > 0:
        _min_rows_kernel[(M,)](x2, vals, idxs, N, BLOCK_SIZE=BLOCK_SIZE)
    vals = vals.reshape(out_shape)
    idxs = idxs.reshape(out_shape)
    if keepdim and nd > 0:
        vals = vals.unsqueeze(d)
        idxs = idxs.unsqueeze(d)
    return vals, idxs
