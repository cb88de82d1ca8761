"""Fusion/fused_cosine_embedding_loss_with_normalization.py: the hinge loss on cosines of
L2-normalised row pairs, the two normalisations, the row dot products, the hinge, the margin and the
reduction fused into one read of both inputs (eager runs F.normalize twice, writing two normalised
copies of the inputs, then a product, a row sum, the clamp and the mean: about 4x this kernel's
traffic and ten launches).

Design: a program owns BLOCK_R rows and sweeps their features in [BLOCK_R, BLOCK_D] tiles of about
4096 elements (8 warps; the perf sweep's D = 256 is one tile of 16 rows, contiguous 128-bit loads),
accumulating three row sums in float32 registers: |a|^2, |b|^2 and a.b. The normalisations never
materialise: c = a.b / (max(|a|, 1e-12) * max(|b|, 1e-12)) equals the dot of the normalised rows.
Then l = max(0, 1 - c t) and, with margin > 0, max(l, margin - c), NaN-propagating as torch.clamp
and torch.maximum. Rows, features and the target are addressed through their own strides, so
non-contiguous inputs are read in place. 'none' stores l; 'mean' / 'sum' store one partial per
program and a one-program second launch adds them in a fixed order (deterministic, no atomics).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_emb_kernel(a_ptr, b_ptr, t_ptr, loss_ptr, part_ptr, N, D, margin, sa0, sa1, sb0, sb1,
                    st0, USE_MARGIN: tl.constexpr, REDUCE: tl.constexpr, I64: tl.constexpr,
                    BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    d0 = tl.arange(0, BLOCK_D)
    if I64:
        rows = rows.to(tl.int64)
        d0 = d0.to(tl.int64)
    rmask = rows < N
    aa = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    bb = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    ab = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    for c0 in range(0, D, BLOCK_D):
        d = c0 + d0
        mask = rmask[:, None] & (d < D)[None, :]
        a = tl.load(a_ptr + rows[:, None] * sa0 + d[None, :] * sa1, mask=mask, other=0.0)
        b = tl.load(b_ptr + rows[:, None] * sb0 + d[None, :] * sb1, mask=mask, other=0.0)
        a = a.to(tl.float32)
        b = b.to(tl.float32)
        aa += a * a
        bb += b * b
        ab += a * b
    na = tl.maximum(tl.sqrt_rn(tl.sum(aa, axis=1)), 1e-12)
    nb = tl.maximum(tl.sqrt_rn(tl.sum(bb, axis=1)), 1e-12)
    c = tl.sum(ab, axis=1) / (na * nb)
    t = tl.load(t_ptr + rows * st0, mask=rmask, other=0).to(tl.float32)
    loss = 1.0 - c * t
    loss = tl.where(loss < 0.0, 0.0, loss)
    if USE_MARGIN:
        m = margin - c
        loss = tl.where(m > loss, m, loss)
    if REDUCE:
        tl.store(part_ptr + pid, tl.sum(tl.where(rmask, loss, 0.0), axis=0))
    else:
        tl.store(loss_ptr + rows, loss.to(loss_ptr.dtype.element_ty), mask=rmask)


@triton.jit
def _final_kernel(part_ptr, y_ptr, P, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for s0 in range(0, P, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(y_ptr, (tl.sum(acc, axis=0) * scale).to(y_ptr.dtype.element_ty))


def fused_cosine_embedding_loss_with_normalization(input1, input2, target, margin=0,
                                                   reduction='mean'):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if input1.dim() != 2 or input1.shape != input2.shape:
        raise ValueError(f"expected two (N, D) inputs of one shape, got {tuple(input1.shape)} and "
                         f"{tuple(input2.shape)}")
    N, D = input1.shape
    if target.shape != (N,):
        raise ValueError(f"target must have shape ({N},), got {tuple(target.shape)}")
    dev = input1.device
    BLOCK_D = min(triton.next_power_of_2(max(D, 1)), 4096)
    BLOCK_R = max(1, min(triton.next_power_of_2(max(N, 1)), 4096 // BLOCK_D))
    P = max(triton.cdiv(N, BLOCK_R), 1)
    span = max(abs(input1.stride(0)), abs(input2.stride(0))) * N + \
        max(abs(input1.stride(1)), abs(input2.stride(1))) * D
    meta = dict(USE_MARGIN=margin > 0, I64=span + 8192 >= 2**31, BLOCK_R=BLOCK_R,
                BLOCK_D=BLOCK_D, num_warps=8 if BLOCK_R * BLOCK_D >= 4096 else 4)
    args = (N, D, float(margin), input1.stride(0), input1.stride(1), input2.stride(0),
            input2.stride(1), target.stride(0))
    if reduction == 'none':
        loss = torch.empty(N, dtype=torch.float32, device=dev)
        if N:
            _cos_emb_kernel[(P,)](input1, input2, target, loss, loss, *args, REDUCE=False, **meta)
        return loss
    part = torch.zeros(P, dtype=torch.float32, device=dev)
    if N:
        _cos_emb_kernel[(P,)](input1, input2, target, part, part, *args, REDUCE=True, **meta)
    y = torch.empty((), dtype=torch.float32, device=dev)
    scale = (1.0 / N if N else float("nan")) if reduction == 'mean' else 1.0
    _final_kernel[(1,)](part, y, P, scale, BLOCK=1024, num_warps=4)
    return y
