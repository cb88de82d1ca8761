"""Index/masked_select.py: broadcast input and mask; kernel 1 counts True per block, an exclusive
prefix sum of the block counts (torch.cumsum on the small count vector) gives each block's output
offset, kernel 2 recomputes the in-block prefix with tl.cumsum and scatters the selected values.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(m_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mk = tl.load(m_ptr + offs, mask=offs < n, other=0).to(tl.int32)
    tl.store(c_ptr + pid, tl.sum(mk, axis=0))


@triton.jit
def _scatter_kernel(x_ptr, m_ptr, off_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    mk = tl.load(m_ptr + offs, mask=inb, other=0).to(tl.int32)
    pos = tl.cumsum(mk, axis=0) - mk
    base = tl.load(off_ptr + pid)
    x = tl.load(x_ptr + offs, mask=inb, other=0.0)
    tl.store(y_ptr + base + pos, x, mask=inb & (mk != 0))


def masked_select(input, mask):
    x, m = torch.broadcast_tensors(input, mask)
    x = x.contiguous().reshape(-1)
    m = m.contiguous().reshape(-1).to(torch.int8)
    n = x.numel()
    BLOCK = 1024
    nb = max(1, triton.cdiv(n, BLOCK))
    counts = torch.empty(nb, dtype=torch.int32, device=x.device)
    _count_kernel[(nb,)](m, counts, n, BLOCK=BLOCK)
    offsets = torch.cumsum(counts, 0) - counts
    total = int(counts.sum().item())
    y = torch.empty(total, dtype=input.dtype, device=x.device)
    if total > 0:
        _scatter_kernel[(nb,)](x, m, offsets.to(torch.int32), y, n, BLOCK=BLOCK)
    return y
