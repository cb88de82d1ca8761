"""Loss/cross_entropy.py: softmax cross-entropy with class-index targets, log-softmax, the target
gather, the class weights, ignore_index and the reduction fused: the logits are read once and
nothing of their size is written (eager F.cross_entropy runs log_softmax, writing a tensor the size
of the logits, then nll_loss reading it back: about 3x this kernel's traffic).

Design: every position (sample n and spatial index) is a row whose C logits sit at stride
input.stride(1); the positions are collapsed (size-1 dims dropped, jointly contiguous dims merged)
and addressed through the logits' and the targets' own strides, so (N, C), (N, C, d1, ...) and
non-contiguous logits are read in place (when every row starts on a 16-byte boundary, as the
perf sweep's C = 1000 rows do, the kernel is told so and loads 128-bit vectors). For C up to 8192 a program holds [BLOCK_R, BLOCK_C]
(about 4096 logits: 4 rows of the perf sweep's C = 1000, 8 warps) in registers: row max, log-sum-exp
in float32, then one scalar gather of the target logit per row; loss = w[y] * (lse - x[y]), 0
where y == ignore_index. Longer rows stream through an online log-sum-exp (running max and
rescaled sum). 'none' stores the per-row losses; 'mean' / 'sum' store one (sum of losses, sum of
weights) pair per program and a one-program second launch adds them in a fixed order
(deterministic, no atomics) and divides for 'mean' (sum(w[y]) over kept targets, NaN when all are
ignored, as torch).
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
def _ce_kernel(x_ptr, t_ptr, w_ptr, loss_ptr, pl_ptr, pw_ptr, R, C, xsc, wsc, ignore_index,
               S1, S2, S3, xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3, NDIM: tl.constexpr,
               HAS_W: tl.constexpr, REDUCE: tl.constexpr, ONE_TILE: tl.constexpr,
               ROW_ALIGN: tl.constexpr, I64: tl.constexpr, BLOCK_R: tl.constexpr,
               BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    cols0 = tl.arange(0, BLOCK_C)
    if I64:
        rows = rows.to(tl.int64)
        cols0 = cols0.to(tl.int64)
    rmask = rows < R
    xr = _strided(rows, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    if ROW_ALIGN > 1:
        # every row starts on a 16-byte boundary and C is a multiple of 4 (checked on the host);
        # rounding the offsets down (a no-op) lets the compiler prove it and issue 128-bit loads
        xr = (xr // ROW_ALIGN) * ROW_ALIGN
        C = (C // ROW_ALIGN) * ROW_ALIGN
    tr = _strided(rows, S1, S2, S3, ts0, ts1, ts2, ts3, NDIM)
    y = tl.load(t_ptr + tr, mask=rmask, other=ignore_index)
    valid = rmask & (y != ignore_index)
    ysafe = tl.where(valid, y, 0)
    if ONE_TILE:
        mask = rmask[:, None] & (cols0 < C)[None, :]
        x = tl.load(x_ptr + xr[:, None] + cols0[None, :] * xsc, mask=mask,
                    other=-float("inf")).to(tl.float32)
        m = tl.max(x, axis=1)
        m = tl.where(m == -float("inf"), 0.0, m)
        s = tl.sum(tl.exp(x - m[:, None]), axis=1)
    else:
        m = tl.full([BLOCK_R], -float("inf"), tl.float32)
        s = tl.zeros([BLOCK_R], tl.float32)
        for c0 in range(0, C, BLOCK_C):
            cols = c0 + cols0
            mask = rmask[:, None] & (cols < C)[None, :]
            x = tl.load(x_ptr + xr[:, None] + cols[None, :] * xsc, mask=mask,
                        other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
            s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
            m = m_new
        m = tl.where(m == -float("inf"), 0.0, m)
    lse = m + tl.log(s)
    xy = tl.load(x_ptr + xr + ysafe * xsc, mask=valid, other=0.0).to(tl.float32)
    if HAS_W:
        w = tl.load(w_ptr + ysafe * wsc, mask=valid, other=0.0).to(tl.float32)
    else:
        w = tl.where(valid, 1.0, 0.0)
    loss = tl.where(valid, w * (lse - xy), 0.0)
    if REDUCE:
        tl.store(pl_ptr + pid, tl.sum(loss, axis=0))
        tl.store(pw_ptr + pid, tl.sum(w, axis=0))
    else:
        tl.store(loss_ptr + rows, loss.to(loss_ptr.dtype.element_ty), mask=rmask)


@triton.jit
def _ce_final_kernel(pl_ptr, pw_ptr, y_ptr, P, MEAN: tl.constexpr, BLOCK: tl.constexpr):
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


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean'):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.dtype.is_floating_point:
        raise NotImplementedError("cross_entropy: this kernel takes class-index targets only")
    x, t = input, target
    if x.dim() == 1:
        x, t = x.unsqueeze(0), t.unsqueeze(0)
    if x.dim() < 2 or t.shape != x.shape[:1] + x.shape[2:]:
        raise ValueError(f"cross_entropy: expected target of shape {tuple(x.shape[:1] + x.shape[2:])}"
                         f" for input {tuple(x.shape)}, got {tuple(target.shape)}")
    C = x.shape[1]
    if weight is not None and weight.shape != (C,):
        raise RuntimeError(f"cross_entropy: weight must have {C} elements, got {tuple(weight.shape)}")
    pos_shape = list(t.shape)
    xst = [x.stride(0)] + list(x.stride())[2:]
    plan = _collapse(pos_shape, [xst, list(t.stride())])
    if plan is None:
        t = t.contiguous()
        x = x.contiguous()
        plan = _collapse(pos_shape, [[x.stride(0)] + list(x.stride())[2:], list(t.stride())])
    sizes, st, ndim = plan
    R = t.numel()
    dev = input.device
    one = C <= 8192
    BLOCK_C = triton.next_power_of_2(max(C, 1)) if one else 2048
    BLOCK_R = max(1, min(triton.next_power_of_2(max(R, 1)), 4096 // BLOCK_C))
    warps = 8 if BLOCK_R * BLOCK_C >= 4096 else 4
    P = triton.cdiv(R, BLOCK_R)
    span = sum(abs(s) * (d - 1) for s, d in zip(st[0], sizes)) + abs(x.stride(1)) * C
    i64 = max(R * C, span) + 8192 >= 2**31
    row_align = 1
    if x.stride(1) == 1 and x.element_size() == 4 and x.data_ptr() % 16 == 0 and C % 4 == 0 and \
            all(s % 4 == 0 for s, d in zip(st[0], sizes) if d > 1):
        row_align = 4
    w = weight if weight is not None else x
    wsc = weight.stride(0) if weight is not None else 0
    if reduction == 'none':
        loss = torch.empty(target.shape, dtype=input.dtype, device=dev)
        if R:
            _ce_kernel[(P,)](x, t, w, loss, loss, loss, R, C, x.stride(1), wsc, ignore_index,
                             sizes[1], sizes[2], sizes[3], *st[0], *st[1], NDIM=ndim,
                             HAS_W=weight is not None, REDUCE=False, ONE_TILE=one, ROW_ALIGN=row_align, I64=i64,
                             BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=warps)
        return loss
    y = torch.empty((), dtype=input.dtype, device=dev)
    P = max(P, 1)
    pl = torch.zeros(P, dtype=torch.float32, device=dev)
    pw = torch.zeros(P, dtype=torch.float32, device=dev)
    if R:
        _ce_kernel[(P,)](x, t, w, pl, pl, pw, R, C, x.stride(1), wsc, ignore_index, sizes[1],
                         sizes[2], sizes[3], *st[0], *st[1], NDIM=ndim, HAS_W=weight is not None,
                         REDUCE=True, ONE_TILE=one, ROW_ALIGN=row_align, I64=i64, BLOCK_R=BLOCK_R,
                         BLOCK_C=BLOCK_C, num_warps=warps)
    _ce_final_kernel[(1,)](pl, pw, y, P, MEAN=reduction == 'mean', BLOCK=1024, num_warps=4)
    return y
