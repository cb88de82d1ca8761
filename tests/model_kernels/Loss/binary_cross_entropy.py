"""Loss/binary_cross_entropy.py: elementwise -w * (t * max(log x, -100) + (1 - t) *
max(log(1 - x), -100)), weight broadcast with expand().contiguous(); per-block partial sums, then
one program sums them ('mean' divides by numel).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bce_kernel(x_ptr, t_ptr, w_ptr, l_ptr, p_ptr, n, HAS_W: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.5)
    t = tl.load(t_ptr + offs, mask=m, other=0.0)
    lx = tl.maximum(tl.log(x), -100.0)
    l1x = tl.maximum(tl.log(1.0 - x), -100.0)
    l = -(t * lx + (1.0 - t) * l1x)
    if HAS_W:
        l = l * tl.load(w_ptr + offs, mask=m, other=0.0)
    l = tl.where(m, l, 0.0)
    tl.store(l_ptr + offs, l, mask=m)
    tl.store(p_ptr + pid, tl.sum(l, axis=0))


@triton.jit
def _sum_kernel(p_ptr, y_ptr, nb, scale, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, nb, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + offs, mask=offs < nb, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0) * scale)


def binary_cross_entropy(input, target, weight=None, reduction='mean'):
    x = input.contiguous()
    t = target.contiguous()
    w = weight.expand_as(x).contiguous() if weight is not None else x
    n = x.numel()
    BLOCK = 512
    nb = triton.cdiv(n, BLOCK)
    l = torch.empty_like(x)
    p = torch.empty(nb, dtype=torch.float32, device=x.device)
    _bce_kernel[(nb,)](x, t, w, l, p, n, HAS_W=weight is not None, BLOCK_SIZE=BLOCK)
    if reduction == 'none':
        return l
    y = torch.empty((), dtype=torch.float32, device=x.device)
    _sum_kernel[(1,)](p, y, nb, 1.0 / n if reduction == 'mean' else 1.0, BLOCK_SIZE=64)
    return y
