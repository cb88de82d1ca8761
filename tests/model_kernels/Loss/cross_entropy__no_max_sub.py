"""Loss/cross_entropy.py variant, weaker-model style: log-sum-exp without subtracting the row max
(log(sum(exp(x)))) and the final reduction in torch. The description asks for a stable
log-softmax; on these inputs (largest logit about 8 * 3.3 = 26, e^26 fits float32 easily) it is
accurate to rounding, so by the documented tolerance contract it is correct on every case; it
would overflow for logits above ~88.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def ce_kernel(x_ptr, t_ptr, w_ptr, loss_ptr, wsum_ptr, C, ignore_index,
              HAS_W: tl.constexpr, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_C)
    m = offs < C
    x = tl.load(x_ptr + row * C + offs, mask=m, other=float('-inf'))
    lse = tl.log(tl.sum(tl.exp(x), axis=0))
    t = tl.load(t_ptr + row)
    valid = t != ignore_index
    tc = tl.where(valid, t, 0)
    xt = tl.load(x_ptr + row * C + tc)
    w = tl.load(w_ptr + tc) if HAS_W else 1.0
    w = tl.where(valid, w, 0.0)
    tl.store(loss_ptr + row, w * (lse - xt))
    tl.store(wsum_ptr + row, w)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean'):
    C = input.shape[1]
    x = input.detach().movedim(1, -1).contiguous().reshape(-1, C)
    t = target.reshape(-1).contiguous()
    n = x.shape[0]
    loss = torch.empty(n, device=x.device, dtype=torch.float32)
    wsum = torch.empty(n, device=x.device, dtype=torch.float32)
    ce_kernel[(n,)](x, t, weight if weight is not None else x, loss, wsum, C, ignore_index,
                    HAS_W=weight is not None, BLOCK_C=triton.next_power_of_2(C))
    if reduction == 'none':
        return loss.reshape(target.shape)
    if reduction == 'sum':
        return loss.sum()
    return loss.sum() / wsum.sum()
