"""Fusion/fused_cross_entropy_softmax_layernorm.py: one program per row loads the logits (C <= a
block), computes max / logsumexp / log-probs, the row's weighted NLL and label-smoothing terms and
its weight, and writes layer_norm(softmax(row)); a second single-program kernel reduces the loss
('mean' divides by the total weight of counted rows, as cross_entropy does).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _row_kernel(x_ptr, t_ptr, w_ptr, nll_ptr, sm_ptr, wt_ptr, out_ptr, C, ignore_index, eps,
                HAS_W: tl.constexpr, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_C)
    m = offs < C
    x = tl.load(x_ptr + row * C + offs, mask=m, other=-float("inf"))
    mx = tl.max(x, axis=0)
    e = tl.where(m, tl.exp(x - mx), 0.0)
    s = tl.sum(e, axis=0)
    logp = x - mx - tl.log(s)
    logp = tl.where(m, logp, 0.0)
    t = tl.load(t_ptr + row)
    valid = t != ignore_index
    tc = tl.where(valid, t, 0)
    if HAS_W:
        w = tl.load(w_ptr + offs, mask=m, other=0.0)
        wy = tl.load(w_ptr + tc)
    else:
        w = tl.where(m, 1.0, 0.0)
        wy = 1.0
    lp_y = tl.sum(tl.where(offs == tc, logp, 0.0), axis=0)
    nll = tl.where(valid, -wy * lp_y, 0.0)
    smooth = tl.where(valid, -tl.sum(w * logp, axis=0), 0.0)
    tl.store(nll_ptr + row, nll)
    tl.store(sm_ptr + row, smooth)
    tl.store(wt_ptr + row, tl.where(valid, wy, 0.0))
    p = e / s
    mean = tl.sum(p, axis=0) / C
    d = tl.where(m, p - mean, 0.0)
    var = tl.sum(d * d, axis=0) / C
    tl.store(out_ptr + row * C + offs, d / tl.sqrt(var + eps), mask=m)


@triton.jit
def _loss_kernel(nll_ptr, sm_ptr, wt_ptr, loss_ptr, N, C, ls, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    a = tl.zeros([BLOCK], dtype=tl.float32)
    b = tl.zeros([BLOCK], dtype=tl.float32)
    c = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, N, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        m = offs < N
        a += tl.load(nll_ptr + offs, mask=m, other=0.0)
        b += tl.load(sm_ptr + offs, mask=m, other=0.0)
        c += tl.load(wt_ptr + offs, mask=m, other=0.0)
    nll = tl.sum(a, axis=0)
    sm = tl.sum(b, axis=0)
    if MEAN:
        wsum = tl.sum(c, axis=0)
        nll = nll / wsum
        sm = sm / wsum
    tl.store(loss_ptr, (1.0 - ls) * nll + ls / C * sm)


@triton.jit
def _none_kernel(nll_ptr, sm_ptr, loss_ptr, N, C, ls, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    a = tl.load(nll_ptr + offs, mask=m, other=0.0)
    b = tl.load(sm_ptr + offs, mask=m, other=0.0)
    tl.store(loss_ptr + offs, (1.0 - ls) * a + ls / C * b, mask=m)


def fused_cross_entropy_softmax_layernorm(logits, targets, normalized_shape, weight=None, ignore_index=-100,
                                          reduction='mean', label_smoothing=0.0, eps=1e-05, *, out=None):
    x = logits.contiguous()
    t = targets.contiguous()
    N, C = x.shape
    dev = x.device
    nll = torch.empty(N, dtype=torch.float32, device=dev)
    sm = torch.empty(N, dtype=torch.float32, device=dev)
    wt = torch.empty(N, dtype=torch.float32, device=dev)
    normed = torch.empty((N, C), dtype=torch.float32, device=dev)
    _row_kernel[(N,)](x, t, weight.contiguous() if weight is not None else x, nll, sm, wt, normed, C,
                      ignore_index, float(eps), HAS_W=weight is not None, BLOCK_C=triton.next_power_of_2(C))
    if reduction == 'none':
        loss = torch.empty(N, dtype=torch.float32, device=dev)
        _none_kernel[(triton.cdiv(N, 128),)](nll, sm, loss, N, C, float(label_smoothing), BLOCK=128)
    else:
        loss = torch.empty((), dtype=torch.float32, device=dev)
        _loss_kernel[(1,)](nll, sm, wt, loss, N, C, float(label_smoothing), MEAN=reduction == 'mean', BLOCK=128)
    if out is not None:
        out.copy_(normed)
        normed = out
    return loss, normed
