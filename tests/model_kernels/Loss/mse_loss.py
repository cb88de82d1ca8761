"""Loss/mse_loss.py: one elementwise-squared-difference kernel with per-block partial sums
(tl.sum of each 1024-element block written to a partials buffer), then a second kernel sums the
partials; 'mean' divides by numel. 'none' writes the squares.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sq_kernel(a_ptr, b_ptr, y_ptr, part_ptr, n, WRITE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    d = a - b
    sq = d * d
    if WRITE:
        tl.store(y_ptr + offs, sq, mask=m)
    else:
        tl.store(part_ptr + pid, tl.sum(sq, axis=0))


@triton.jit
def _sum_kernel(p_ptr, y_ptr, n, scale, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0) * scale)


def mse_loss(input, target, reduction='mean'):
    a = input.contiguous()
    b = target.contiguous()
    n = a.numel()
    BLOCK = 1024
    nb = triton.cdiv(n, BLOCK)
    if reduction == 'none':
        y = torch.empty_like(a)
        _sq_kernel[(nb,)](a, b, y, y, n, WRITE=True, BLOCK_SIZE=BLOCK)
        return y
    part = torch.empty(nb, dtype=torch.float32, device=a.device)
    _sq_kernel[(nb,)](a, b, part, part, n, WRITE=False, BLOCK_SIZE=BLOCK)
    y = torch.empty((), dtype=torch.float32, device=a.device)
    scale = 1.0 / n if reduction == 'mean' else 1.0
    _sum_kernel[(1,)](part, y, nb, scale, BLOCK_SIZE=128)
    return y
