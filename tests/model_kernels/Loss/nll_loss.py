"""Loss/nll_loss.py: input viewed as [N, C, S] (S = spatial size); one program per block of
(n, s) positions gathers -w[y] * input[n, y, s], zero where y == ignore_index; per-block partial
loss and weight sums, combined by a second single-program kernel ('mean' divides).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _nll_kernel(x_ptr, t_ptr, w_ptr, l_ptr, pl_ptr, pw_ptr, total, C, S, ignore_index,
                HAS_W: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < total
    t = tl.load(t_ptr + offs, mask=m, other=ignore_index)
    valid = m & (t != ignore_index)
    tc = tl.where(valid, t, 0)
    n = offs // S
    s = offs % S
    x = tl.load(x_ptr + n * C * S + tc * S + s, mask=valid, other=0.0)
    if HAS_W:
        w = tl.load(w_ptr + tc, mask=valid, other=0.0)
    else:
        w = tl.where(valid, 1.0, 0.0)
    l = -x * w
    tl.store(l_ptr + offs, l, mask=m)
    tl.store(pl_ptr + pid, tl.sum(l, axis=0))
    tl.store(pw_ptr + pid, tl.sum(w, axis=0))


@triton.jit
def _reduce_kernel(pl_ptr, pw_ptr, y_ptr, nb, MEAN: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    a = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    b = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, nb, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        a += tl.load(pl_ptr + offs, mask=offs < nb, other=0.0)
        b += tl.load(pw_ptr + offs, mask=offs < nb, other=0.0)
    s = tl.sum(a, axis=0)
    if MEAN:
        s = s / tl.sum(b, axis=0)
    tl.store(y_ptr, s)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean'):
    x = input.contiguous()
    t = target.contiguous()
    N, C = x.shape[0], x.shape[1]
    S = x.numel() // (N * C)
    total = N * S
    BLOCK = 256
    nb = triton.cdiv(total, BLOCK)
    l = torch.empty(t.shape, dtype=torch.float32, device=x.device)
    pl = torch.empty(nb, dtype=torch.float32, device=x.device)
    pw = torch.empty(nb, dtype=torch.float32, device=x.device)
    w = weight.contiguous() if weight is not None else x
    _nll_kernel[(nb,)](x, t, w, l, pl, pw, total, C, S, ignore_index, HAS_W=weight is not None,
                       BLOCK_SIZE=BLOCK)
    if reduction == 'none':
        return l
    y = torch.empty((), dtype=torch.float32, device=x.device)
    _reduce_kernel[(1,)](pl, pw, y, nb, MEAN=reduction == 'mean', BLOCK_SIZE=64)
    return y
