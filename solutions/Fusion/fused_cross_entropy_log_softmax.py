"""Fusion/fused_cross_entropy_log_softmax.py: cross_entropy(log_softmax(input, dim), target, ...)
with class weights, ignore_index, label smoothing, class-index or class-probability targets and
the reduction, fused into one read of the logits when dim is the class dim (log_softmax is
idempotent there, so the composition is one cross-entropy). Eager runs log_softmax, writing a
tensor the size of the logits, then a loss that reads it back (and with smoothing, a second
weighted sum over it): about 3x this kernel's traffic.

Design: every position (sample n and spatial index) is a row whose C logits sit at stride
input.stride(1); positions are collapsed (size-1 dims dropped, jointly contiguous dims merged)
and addressed through the logits' and the targets' own strides, so (N, C), (N, C, d1, ...) and
non-contiguous inputs are read in place. A program owns BLOCK_R rows and sweeps their classes in
[BLOCK_R, BLOCK_C] tiles of about 4096 logits (8 warps; the perf sweep's C = 128 is one tile of 32
rows) with an online log-sum-exp (running max, rescaled sum), and in the same sweep the linear
sums the loss needs: sum_c w_c x_c and sum_c w_c for smoothing, or sum_c w_c t'_c x_c and
sum_c w_c t'_c for probability targets (t' = (1 - s) t + s / C). Per row, with index target y:
l = (1 - s) w_y (lse - x_y) + (s / C) (lse sum_c w_c - sum_c w_c x_c), 0 where y == ignore_index;
with probabilities: l = lse sum_c w_c t'_c - sum_c w_c t'_c x_c. 'none' stores l; 'mean' / 'sum'
store one (sum of l, normaliser) pair per program (the normaliser is w_y for index targets, as
torch's nll and smoothing terms use, and 1 per row for probabilities), and a one-program second
launch adds them in a fixed order: deterministic, no atomics. float32 math. For another `dim`
the log_softmax along it is a first strided pass (one read, one write), then the same loss kernel.
"""
# expect: ok
import torch
import triton
import triton.language as tl

@triton.jit
def _strided(offs, S1, S2, S3, s0, s1, s2, s3, NDIM: tl.constexpr):
    # Element offset of flat (row-major) indices `offs` in an operand with strides s0..s3 over
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous / scalar case.
    if NDIM == 1:
        return offs * s3
    i3 = offs % S3
    r = offs // S3
    if NDIM == 2:
        return r * s2 + i3 * s3
    i2 = r % S2
    r = r // S2
    if NDIM == 3:
        return r * s1 + i2 * s2 + i3 * s3
    i1 = r % S1
    r = r // S1
    return r * s0 + i1 * s1 + i2 * s2 + i3 * s3

def _collapse(sizes, strides):
    """Drops size-1 dims and merges dims every operand walks contiguously, padded to 4 dims.
    `strides` holds one stride list per operand. Returns (sizes[4], [strides[4]...], ndim), or
    None when more than 4 dims remain."""
    dims = [d for d in range(len(sizes)) if sizes[d] != 1]
    sizes = [sizes[d] for d in dims]
    strides = [[s[d] for d in dims] for s in strides]
    i = len(sizes) - 1
    while i > 0:
        if all(s[i - 1] == s[i] * sizes[i] for s in strides):
            sizes[i - 1] *= sizes[i]
            del sizes[i]
            for s in strides:
                s[i - 1] = s[i]
                del s[i]
        i -= 1
    if len(sizes) > 4:
        return None
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], max(len(sizes), 1)

@triton.jit
def _ce_kernel(x_ptr, t_ptr, w_ptr, loss_ptr, pl_ptr, pw_ptr, R, C, xsc, tsc, wsc, ignore_index,
               smooth, S1, S2, S3, xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3, NDIM: tl.constexpr,
               HAS_W: tl.constexpr, PROB: tl.constexpr, SMOOTH: tl.constexpr,
               REDUCE: tl.constexpr, I64: tl.constexpr, BLOCK_R: tl.constexpr,
               BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    cols0 = tl.arange(0, BLOCK_C)
    if I64:
        rows = rows.to(tl.int64)
        cols0 = cols0.to(tl.int64)
    rmask = rows < R
    xr = _strided(rows, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    tr = _strided(rows, S1, S2, S3, ts0, ts1, ts2, ts3, NDIM)
    if PROB:
        valid = rmask
    else:
        y = tl.load(t_ptr + tr, mask=rmask, other=ignore_index)
        valid = rmask & (y != ignore_index)
        ysafe = tl.where(valid, y, 0)
    m = tl.full([BLOCK_R], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK_R], tl.float32)
    swx = tl.zeros([BLOCK_R], tl.float32)
    sw = tl.zeros([BLOCK_R], tl.float32)
    for c0 in range(0, C, BLOCK_C):
        cols = c0 + cols0
        cmask = cols < C
        mask = rmask[:, None] & cmask[None, :]
        x = tl.load(x_ptr + xr[:, None] + cols[None, :] * xsc, mask=mask,
                    other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        m = m_new
        if PROB or SMOOTH:
            if HAS_W:
                wc = tl.load(w_ptr + cols * wsc, mask=cmask, other=0.0).to(tl.float32)[None, :]
            else:
                wc = tl.where(cmask, 1.0, 0.0)[None, :]
            if PROB:
                t = tl.load(t_ptr + tr[:, None] + cols[None, :] * tsc, mask=mask,
                            other=0.0).to(tl.float32)
                wc = wc * ((1.0 - smooth) * t + smooth / C)
            wc = tl.where(mask, wc, 0.0)
            swx += tl.sum(wc * tl.where(mask, x, 0.0), axis=1)
            sw += tl.sum(wc, axis=1)
    m = tl.where(m == -float("inf"), 0.0, m)
    lse = m + tl.log(s)
    if PROB:
        loss = lse * sw - swx
        norm = tl.where(valid, 1.0, 0.0)
    else:
        xy = tl.load(x_ptr + xr + ysafe * xsc, mask=valid, other=0.0).to(tl.float32)
        if HAS_W:
            wy = tl.load(w_ptr + ysafe * wsc, mask=valid, other=0.0).to(tl.float32)
        else:
            wy = tl.where(valid, 1.0, 0.0)
        loss = (1.0 - smooth) * wy * (lse - xy)
        if SMOOTH:
            loss += (smooth / C) * (lse * sw - swx)
        norm = wy
    loss = tl.where(valid, loss, 0.0)
    if REDUCE:
        tl.store(pl_ptr + pid, tl.sum(loss, axis=0))
        tl.store(pw_ptr + pid, tl.sum(norm, axis=0))
    else:
        tl.store(loss_ptr + rows, loss.to(loss_ptr.dtype.element_ty), mask=rmask)


@triton.jit
def _final_kernel(pl_ptr, pw_ptr, y_ptr, P, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    acc_l = tl.zeros([BLOCK], tl.float32)
    acc_w = tl.zeros([BLOCK], tl.float32)
    for s0 in range(0, P, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        acc_l += tl.load(pl_ptr + offs, mask=offs < P, other=0.0)
        acc_w += tl.load(pw_ptr + offs, mask=offs < P, other=0.0)
    total = tl.sum(acc_l, axis=0)
    if MEAN:
        total = total / tl.sum(acc_w, axis=0)
    tl.store(y_ptr, total.to(y_ptr.dtype.element_ty))


@triton.jit
def _log_softmax_kernel(x_ptr, y_ptr, M, N, S1, S2, S3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                        xsn, ysn, NDIM: tl.constexpr, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    xrow = _strided(rows, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    yrow = _strided(rows, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM)
    cols = tl.arange(0, BLOCK_N)
    m = tl.full([BLOCK_M], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK_M], tl.float32)
    for start in range(0, N, BLOCK_N):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < N)
        x = tl.load(x_ptr + xrow[:, None] + c[None, :] * xsn, mask=mask,
                    other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        m = m_new
    lse = tl.where(m == -float("inf"), 0.0, m) + tl.log(s)
    for start in range(0, N, BLOCK_N):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < N)
        x = tl.load(x_ptr + xrow[:, None] + c[None, :] * xsn, mask=mask, other=0.0)
        y = x.to(tl.float32) - lse[:, None]
        tl.store(y_ptr + yrow[:, None] + c[None, :] * ysn, y.to(y_ptr.dtype.element_ty),
                 mask=mask)


def _log_softmax(x, dim):
    """log_softmax of x along dim into a new tensor (one strided read, one write)."""
    y = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    N = x.shape[dim]
    M = x.numel() // N if N else 0
    if M == 0:
        return y
    xm, ym = x.movedim(dim, -1), y.movedim(dim, -1)
    outer = list(xm.shape[:-1])
    plan = _collapse(outer, [list(xm.stride()[:-1]), list(ym.stride()[:-1])])
    if plan is None:
        xm = xm.contiguous()
        plan = _collapse(outer, [list(xm.stride()[:-1]), list(ym.stride()[:-1])])
    sizes, st, ndim = plan
    BLOCK_N = min(triton.next_power_of_2(N), 4096)
    BLOCK_M = max(1, min(triton.next_power_of_2(M), 4096 // BLOCK_N))
    _log_softmax_kernel[(triton.cdiv(M, BLOCK_M),)](
        xm, ym, M, N, sizes[1], sizes[2], sizes[3], *st[0], *st[1], xm.stride(-1), ym.stride(-1),
        NDIM=ndim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_M * BLOCK_N >= 4096 else 4)
    return y


def fused_cross_entropy_log_softmax(input, target, dim=1, weight=None, ignore_index=-100,
                                    reduction='mean', label_smoothing=0.0):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x, t = input, target
    class_dim = 1 if x.dim() > 1 else 0
    if dim % max(x.dim(), 1) != class_dim:
        x = _log_softmax(x, dim % x.dim())
    prob = t.dtype.is_floating_point
    if x.dim() == 1:
        x, t = x.unsqueeze(0), t.unsqueeze(0)
    C = x.shape[1]
    pos_shape = [x.shape[0]] + list(x.shape[2:])
    if prob and t.shape != x.shape:
        raise ValueError(f"cross_entropy: probability target of shape {tuple(target.shape)} must "
                         f"match input {tuple(input.shape)}")
    if not prob and list(t.shape) != pos_shape:
        raise ValueError(f"cross_entropy: expected target of shape {tuple(pos_shape)} for input "
                         f"{tuple(input.shape)}, got {tuple(target.shape)}")
    if weight is not None and weight.shape != (C,):
        raise RuntimeError(f"cross_entropy: weight must have {C} elements, got "
                           f"{tuple(weight.shape)}")
    xst = [x.stride(0)] + list(x.stride())[2:]
    tst = ([t.stride(0)] + list(t.stride())[2:]) if prob else list(t.stride())
    plan = _collapse(pos_shape, [xst, tst])
    if plan is None:
        x, t = x.contiguous(), t.contiguous()
        xst = [x.stride(0)] + list(x.stride())[2:]
        tst = ([t.stride(0)] + list(t.stride())[2:]) if prob else list(t.stride())
        plan = _collapse(pos_shape, [xst, tst])
    sizes, st, ndim = plan
    R = 1
    for d in pos_shape:
        R *= d
    BLOCK_C = min(triton.next_power_of_2(max(C, 1)), 4096)
    BLOCK_R = max(1, min(triton.next_power_of_2(max(R, 1)), 4096 // BLOCK_C))
    warps = 8 if BLOCK_R * BLOCK_C >= 4096 else 4
    P = max(triton.cdiv(R, BLOCK_R), 1)
    span = sum(abs(s) * (d - 1) for s, d in zip(st[0], sizes)) + abs(x.stride(1)) * C
    meta = dict(NDIM=ndim, HAS_W=weight is not None, PROB=prob,
                SMOOTH=float(label_smoothing) > 0, I64=max(R * C, span) + 8192 >= 2**31,
                BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=warps)
    w = weight if weight is not None else x
    wsc = weight.stride(0) if weight is not None else 0
    tsc = t.stride(1) if prob else 0
    args = (C, x.stride(1), tsc, wsc, ignore_index, float(label_smoothing), sizes[1], sizes[2],
            sizes[3], *st[0], *st[1])
    dev = input.device
    if reduction == 'none':
        loss = torch.empty(pos_shape, dtype=torch.float32, device=dev)
        if R:
            _ce_kernel[(P,)](x, t, w, loss, loss, loss, R, *args, REDUCE=False, **meta)
        return loss.reshape(pos_shape if input.dim() > 1 else ())
    pl = torch.zeros(P, dtype=torch.float32, device=dev)
    pw = torch.zeros(P, dtype=torch.float32, device=dev)
    if R:
        _ce_kernel[(P,)](x, t, w, pl, pl, pw, R, *args, REDUCE=True, **meta)
    y = torch.empty((), dtype=torch.float32, device=dev)
    _final_kernel[(1,)](pl, pw, y, P, MEAN=reduction == 'mean', BLOCK=1024, num_warps=4)
    return y
