"""Fusion/fused_cross_entropy_log_softmax.py: one program per sample row (class dim moved last)
computes the stable log-softmax, the target term and the label-smoothing term (class-weighted),
for index or probability targets; a second kernel reduces ('mean' divides by the summed target
weights for index targets, by the number of samples for probability targets).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _ce_kernel(x_ptr, t_ptr, w_ptr, loss_ptr, den_ptr, C, ignore_index, smoothing,
               HAS_W: tl.constexpr, PROB: tl.constexpr, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_C)
    m = offs < C
    x = tl.load(x_ptr + row.to(tl.int64) * C + offs, mask=m, other=float('-inf'))
    xmax = tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(x - xmax), axis=0)) + xmax
    logp = tl.where(m, x - lse, 0.0)
    if HAS_W:
        w = tl.load(w_ptr + offs, mask=m, other=0.0)
    else:
        w = tl.where(m, 1.0, 0.0)
    if PROB:
        t = tl.load(t_ptr + row.to(tl.int64) * C + offs, mask=m, other=0.0)
        q = (1.0 - smoothing) * t + smoothing / C
        loss = -tl.sum(w * q * logp, axis=0)
        tl.store(loss_ptr + row, loss)
        tl.store(den_ptr + row, 1.0)
    else:
        tgt = tl.load(t_ptr + row)
        valid = tgt != ignore_index
        hit = offs == tgt
        wy = tl.sum(tl.where(hit, w, 0.0), axis=0)
        lpy = tl.sum(tl.where(hit, logp, 0.0), axis=0)
        smooth = -tl.sum(w * logp, axis=0) / C
        loss = (1.0 - smoothing) * (-wy * lpy) + smoothing * smooth
        tl.store(loss_ptr + row, tl.where(valid, loss, 0.0))
        tl.store(den_ptr + row, tl.where(valid, wy, 0.0))


@triton.jit
def _reduce_kernel(loss_ptr, den_ptr, out_ptr, n, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    accd = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        msk = offs < n
        acc += tl.load(loss_ptr + offs, mask=msk, other=0.0)
        accd += tl.load(den_ptr + offs, mask=msk, other=0.0)
    s = tl.sum(acc, axis=0)
    if MEAN:
        s = s / tl.sum(accd, axis=0)
    tl.store(out_ptr, s)


def fused_cross_entropy_log_softmax(input, target, dim=1, weight=None, ignore_index=-100,
                                    reduction='mean', label_smoothing=0.0):
    x = input
    if dim % x.dim() != 1:
        x = torch.log_softmax(x, dim=dim)
    C = x.shape[1]
    xr = x.movedim(1, -1).contiguous().reshape(-1, C)
    rows = xr.shape[0]
    prob = target.is_floating_point()
    if prob:
        t = target.movedim(1, -1).contiguous().reshape(-1, C)
        out_shape = target.movedim(1, -1).shape[:-1]
    else:
        t = target.contiguous().reshape(-1)
        out_shape = target.shape
    loss = torch.empty(rows, dtype=torch.float32, device=x.device)
    den = torch.empty(rows, dtype=torch.float32, device=x.device)
    w = weight.contiguous() if weight is not None else xr
    _ce_kernel[(rows,)](xr, t, w, loss, den, C, ignore_index, float(label_smoothing),
                        HAS_W=weight is not None, PROB=prob, BLOCK_C=triton.next_power_of_2(C))
    if reduction == 'none':
        return loss.reshape(out_shape)
    out = torch.empty((), dtype=torch.float32, device=x.device)
    _reduce_kernel[(1,)](loss, den, out, rows, MEAN=reduction == 'mean',
                         BLOCK=min(1024, triton.next_power_of_2(rows)))
    return out
