"""Fusion/fused_pairwise_distance_normalize.py: p-norm distances between every row of x1 and every
row of x2 after each row is scaled to unit p-norm, with the normalisation folded into the distance
kernel: the normalised copies are never written (eager runs F.normalize twice, each a norm kernel
and a division writing a copy, then cdist reading both copies, then clamp_min over the [N, M]
result: five launches and two extra passes over the output).

Design: launch 1 computes one scale per row, 1 / max(||row||_p, eps_norm), for the rows of both
inputs (one program per 16 rows, the row swept in 128-column tiles). Launch 2 owns a
[BLOCK_N, BLOCK_M] tile of the distance matrix (64 x 64, 4 warps) and walks the D features: per
feature it loads a column of x1's rows and one of x2's rows (addressed through their strides, so
non-contiguous inputs are read in place; the tiles stay in L1 across features), scales them, and
accumulates |a - b|^p for the whole tile in float32 registers: direct differences, as the
reference's cdist mode, so distances near 0 keep their accuracy. p = 2 and p = 1 use d * d and
|d|, p = inf a running max, other p exp(p log |d|). The root, the clamp at eps_distance and the
store (keepdim is a view) finish the tile.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _row_scale_kernel(x_ptr, s_ptr, R, D, sx0, sx1, p, eps, P_KIND: tl.constexpr,
                      BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # P_KIND: 1 (L1), 2 (L2), 3 (inf), 0 (general p > 0).
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < R
    acc = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    for d0 in range(0, D, BLOCK_D):
        d = d0 + tl.arange(0, BLOCK_D)
        mask = rmask[:, None] & (d < D)[None, :]
        x = tl.abs(tl.load(x_ptr + rows[:, None] * sx0 + d[None, :] * sx1, mask=mask,
                           other=0.0).to(tl.float32))
        if P_KIND == 1:
            acc += x
        elif P_KIND == 2:
            acc += x * x
        elif P_KIND == 3:
            acc = tl.maximum(acc, x)
        else:
            acc += tl.where(x > 0, tl.exp(p * tl.log(x)), 0.0)
    if P_KIND == 3:
        norm = tl.max(acc, axis=1)
    else:
        t = tl.sum(acc, axis=1)
        if P_KIND == 1:
            norm = t
        elif P_KIND == 2:
            norm = tl.sqrt_rn(t)
        else:
            norm = tl.where(t > 0, tl.exp(tl.log(t) / p), 0.0)
    tl.store(s_ptr + rows, 1.0 / tl.maximum(norm, eps), mask=rmask)


@triton.jit
def _pairwise_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, y_ptr, N, M, D, sa0, sa1, sb0, sb1, sy0, sy1,
                     p, eps_dist, P_KIND: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_M: tl.constexpr):
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    nmask = rn < N
    mmask = rm < M
    ka = tl.load(sa_ptr + rn, mask=nmask, other=0.0)
    kb = tl.load(sb_ptr + rm, mask=mmask, other=0.0)
    acc = tl.zeros([BLOCK_N, BLOCK_M], tl.float32)
    for k in range(0, D):
        a = tl.load(a_ptr + rn * sa0 + k * sa1, mask=nmask, other=0.0).to(tl.float32) * ka
        b = tl.load(b_ptr + rm * sb0 + k * sb1, mask=mmask, other=0.0).to(tl.float32) * kb
        diff = tl.abs(a[:, None] - b[None, :])
        if P_KIND == 1:
            acc += diff
        elif P_KIND == 2:
            acc += diff * diff
        elif P_KIND == 3:
            acc = tl.maximum(acc, diff)
        else:
            acc += tl.where(diff > 0, tl.exp(p * tl.log(diff)), 0.0)
    if P_KIND == 2:
        dist = tl.sqrt_rn(acc)
    elif P_KIND == 0:
        dist = tl.where(acc > 0, tl.exp(tl.log(acc) / p), 0.0)
    else:
        dist = acc
    dist = tl.maximum(dist, eps_dist)
    tl.store(y_ptr + rn[:, None] * sy0 + rm[None, :] * sy1, dist.to(y_ptr.dtype.element_ty),
             mask=nmask[:, None] & mmask[None, :])


def _scales(x, p, kind, eps):
    R, D = x.shape
    s = torch.empty(R, dtype=torch.float32, device=x.device)
    if R:
        _row_scale_kernel[(triton.cdiv(R, 16),)](x, s, R, D, x.stride(0), x.stride(1), p,
                                                 float(eps), P_KIND=kind, BLOCK_R=16,
                                                 BLOCK_D=128, num_warps=4)
    return s


def fused_pairwise_distance_normalize(x1, x2, p_norm=2.0, eps_norm=1e-12, eps_distance=1e-06,
                                      keepdim=False):
    if x1.dim() != 2 or x2.dim() != 2 or x1.shape[1] != x2.shape[1]:
        raise RuntimeError(f"expected x1 [N, D] and x2 [M, D], got {tuple(x1.shape)} and "
                           f"{tuple(x2.shape)}")
    p = float(p_norm)
    if not p > 0:
        raise NotImplementedError(f"fused_pairwise_distance_normalize: p_norm must be > 0, got {p}")
    kind = 3 if math.isinf(p) else {1.0: 1, 2.0: 2}.get(p, 0)
    N, D = x1.shape
    M = x2.shape[0]
    y = torch.empty((N, M), dtype=torch.result_type(x1, x2), device=x1.device)
    if N and M:
        sa = _scales(x1, p, kind, eps_norm)
        sb = _scales(x2, p, kind, eps_norm)
        BN = 64 if N >= 64 else max(16, triton.next_power_of_2(N))
        BM = 64 if M >= 64 else max(16, triton.next_power_of_2(M))
        _pairwise_kernel[(triton.cdiv(N, BN), triton.cdiv(M, BM))](
            x1, x2, sa, sb, y, N, M, D, x1.stride(0), x1.stride(1), x2.stride(0), x2.stride(1),
            y.stride(0), y.stride(1), p, float(eps_distance), P_KIND=kind, BLOCK_N=BN,
            BLOCK_M=BM, num_warps=4)
    return y.unsqueeze(-1) if keepdim else y
