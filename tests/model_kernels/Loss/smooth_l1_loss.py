"""Loss/smooth_l1_loss.py: broadcast inputs, elementwise Huber term, atomic-free partial sums.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sl1_kernel(x_ptr, t_ptr, out_ptr, part_ptr, n, beta, WRITE_ELEM: tl.constexpr,
                BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    t = tl.load(t_ptr + offs, mask=m, other=0.0)
    d = tl.abs(x - t)
    if beta > 0:
        l = tl.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    else:
        l = d
    l = tl.where(m, l, 0.0)
    if WRITE_ELEM:
        tl.store(out_ptr + offs, l, mask=m)
    else:
        tl.store(part_ptr + pid, tl.sum(l, axis=0))


@triton.jit
def _finish_kernel(p_ptr, out_ptr, n, scale, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * scale)


def smooth_l1_loss(input, target, beta=1.0, reduction='mean'):
    x, t = torch.broadcast_tensors(input, target)
    x = x.contiguous()
    t = t.contiguous()
    n = x.numel()
    BLOCK_SIZE = 1024
    nb = triton.cdiv(n, BLOCK_SIZE)
    if reduction == 'none':
        out = torch.empty_like(x)
        _sl1_kernel[(nb,)](x, t, out, out, n, float(beta), WRITE_ELEM=True, BLOCK_SIZE=BLOCK_SIZE)
        return out
    part = torch.empty(nb, dtype=torch.float32, device=x.device)
    _sl1_kernel[(nb,)](x, t, part, part, n, float(beta), WRITE_ELEM=False, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=torch.float32, device=x.device)
    scale = 1.0 / n if reduction == 'mean' else 1.0
    _finish_kernel[(1,)](part, out, nb, scale, BLOCK_SIZE=min(1024, triton.next_power_of_2(nb)))
    return out
