"""Reduce/argmax.py variant: the row is loaded and compared in bfloat16 (x.to(tl.bfloat16)
"to halve register pressure"), so float32 values that differ below bfloat16's 8-bit mantissa
collapse into ties and the first of the merged values is returned instead of the true maximum.
The description asks for the index of the maximum of the float32 input; a careful judge fails
it (kbx's close_values case, 100 +- 0.01, is built for exactly this).

Otherwise the kernel is Reduce/argmax.py: `dim` is moved to the end and the input made contiguous as [M, N]; one
program per row loops over N in BLOCK_SIZE chunks keeping a running (max, index) pair. In a chunk
the maximum comes from tl.max and its first position from the smallest offset holding it; a
chunk replaces the running pair only when strictly larger, so the first occurrence wins.
Comparisons are done in the input dtype (float32 or int64, no down-cast). Output int64, keepdim
unsqueezes `dim`.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_rows_kernel(x_ptr, idx_ptr, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * N
    first = tl.load(base).to(tl.bfloat16)
    best_v = first
    best_i = tl.zeros([], dtype=tl.int64)
    for start in range(0, N, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        mask = offs < N
        x = tl.load(base + offs, mask=mask, other=first).to(tl.bfloat16)
        m = tl.max(x, axis=0)
        cand = tl.where((x == m) & mask, offs, N)
        mi = tl.min(cand, axis=0).to(tl.int64)
        better = m > best_v
        best_i = tl.where(better, mi, best_i)
        best_v = tl.where(better, m, best_v)
    tl.store(idx_ptr + row, best_i)


def argmax(input_tensor, dim, keepdim=False):
    x = input_tensor
    nd = x.dim()
    d = dim % nd if nd > 0 else 0
    xp = x.movedim(d, -1).contiguous() if nd > 0 else x.reshape(1)
    N = xp.shape[-1]
    out_shape = list(xp.shape[:-1])
    M = xp.numel() // N
    x2 = xp.reshape(M, N)
    idxs = torch.empty(M, dtype=torch.int64, device=x.device)
    BLOCK_SIZE = 128
    if M > 0:
        _argmax_rows_kernel[(M,)](x2, idxs, N, BLOCK_SIZE=BLOCK_SIZE)
    idxs = idxs.reshape(out_shape)
    if keepdim and nd > 0:
        idxs = idxs.unsqueeze(d)
    return idxs
