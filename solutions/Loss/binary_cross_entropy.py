"""Loss/binary_cross_entropy.py: binary cross-entropy of probabilities with clamped logs, the
optional (broadcast) weight and the reduction fused: input, target and weight are read once and
nothing else touches HBM (eager's F.binary_cross_entropy writes the pointwise loss, then a
reduction kernel reads it back).

Design: 'mean' / 'sum' run a persistent grid of at most 4 x 132 programs, one tile per program
until the grid is full (so a mid-size input is read in one parallel wave); each streams BLOCK =
4096 elements per step (8 warps; 1024 and 4 warps below 1M elements; 128-bit loads; every operand,
including a broadcast weight row or a non-contiguous input, is addressed through its own strides
after the iteration space is collapsed) and keeps a float32 vector accumulator in registers, then
writes one partial; a single-program second launch adds the partials in a fixed order
(deterministic, unlike atomics) and divides by n for 'mean'; an input of one tile takes a single
launch that writes the result. 'none' is one elementwise pass. The pointwise loss is torch's: (t -
1) * max(log1p(-x), -100) - t * max(log(x), -100), times w, with log1p(-x) computed as log(1 - x)
corrected by -x / ((1 - x) - 1) so small x keep full relative accuracy; float32 math.
"""
# expect: ok
import torch
import triton
import triton.language as tl

def _plan(shape, tensors):
    """Collapse a broadcast iteration space: drop size-1 dims, merge dims that every operand
    walks contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or
    None when more than 4 dims remain (callers then fall back to contiguous copies)."""
    strides = [list(t.expand(shape).stride()) for t in tensors]
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
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
    ndim = max(len(sizes), 1)
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], ndim


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

@triton.jit
def _bce(x, t):
    x = x.to(tl.float32)
    t = t.to(tl.float32)
    u = 1.0 - x
    d = u - 1.0
    log1m = tl.where(d == 0.0, -x, tl.log(u) * (-x / tl.where(d == 0.0, 1.0, d)))
    log1m = tl.where(u == 0.0, -float("inf"), log1m)
    return (t - 1.0) * tl.maximum(log1m, -100.0) - t * tl.maximum(tl.log(x), -100.0)


@triton.jit
def _partial_kernel(a_ptr, b_ptr, w_ptr, part_ptr, n, S1, S2, S3, as0, as1, as2, as3,
                    bs0, bs1, bs2, bs3, ws0, ws1, ws2, ws3, scale, HAS_W: tl.constexpr,
                    NDIM: tl.constexpr, FINAL: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(pid * BLOCK, n, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        a = tl.load(a_ptr + _strided(offs, S1, S2, S3, as0, as1, as2, as3, NDIM), mask=mask, other=0.5)
        b = tl.load(b_ptr + _strided(offs, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM), mask=mask, other=0.0)
        l = _bce(a, b)
        if HAS_W:
            w = tl.load(w_ptr + _strided(offs, S1, S2, S3, ws0, ws1, ws2, ws3, NDIM), mask=mask,
                        other=0.0)
            l = l * w.to(tl.float32)
        acc += tl.where(mask, l, 0.0)
    if FINAL:  # one program: it writes the result itself (part_ptr is the output)
        tl.store(part_ptr, (tl.sum(acc, axis=0) * scale).to(part_ptr.dtype.element_ty))
    else:
        tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _final_kernel(part_ptr, y_ptr, P, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(y_ptr, (tl.sum(p, axis=0) * scale).to(y_ptr.dtype.element_ty))


@triton.jit
def _pointwise_kernel(a_ptr, b_ptr, w_ptr, y_ptr, n, S1, S2, S3, as0, as1, as2, as3,
                      bs0, bs1, bs2, bs3, ws0, ws1, ws2, ws3, HAS_W: tl.constexpr,
                      NDIM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + _strided(offs, S1, S2, S3, as0, as1, as2, as3, NDIM), mask=mask, other=0.5)
    b = tl.load(b_ptr + _strided(offs, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM), mask=mask, other=0.0)
    l = _bce(a, b)
    if HAS_W:
        w = tl.load(w_ptr + _strided(offs, S1, S2, S3, ws0, ws1, ws2, ws3, NDIM), mask=mask,
                    other=0.0)
        l = l * w.to(tl.float32)
    tl.store(y_ptr + offs, l.to(y_ptr.dtype.element_ty), mask=mask)


def binary_cross_entropy(input, target, weight=None, reduction='mean'):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({tuple(target.shape)}) that is different to the "
                         f"input size ({tuple(input.shape)}) is deprecated. Please ensure they "
                         "have the same size.")
    shape = input.shape
    ops = [input, target] + ([weight] if weight is not None else [])
    plan = _plan(shape, ops)
    if plan is None:
        ops = [t.expand(shape).contiguous() for t in ops]
        plan = _plan(shape, ops)
    sizes, st, ndim = plan
    w = ops[2] if weight is not None else ops[0]
    wst = st[2] if weight is not None else [0, 0, 0, 0]
    n = input.numel()
    dev = input.device
    args = (sizes[1], sizes[2], sizes[3], *st[0], *st[1], *wst)
    if reduction == 'none':
        y = torch.empty(shape, dtype=input.dtype, device=dev)
        if n:
            block, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
            _pointwise_kernel[(triton.cdiv(n, block),)](ops[0], ops[1], w, y, n, *args,
                                                        HAS_W=weight is not None, NDIM=ndim,
                                                        BLOCK=block, num_warps=warps)
        return y
    # One tile per program while the grid fits in 4 x 132 programs (a mid-size input is read in
    # one parallel wave, not by a few programs sweeping sequentially); 1024-element tiles below
    # 1M elements. Up to one tile, a single launch writes the result.
    BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
    P = max(1, min(triton.cdiv(n, BLOCK), 4 * 132))
    y = torch.empty((), dtype=input.dtype, device=dev)
    scale = (1.0 / n if n else float("nan")) if reduction == 'mean' else 1.0
    if P == 1:
        _partial_kernel[(1,)](ops[0], ops[1], w, y, n, *args, scale, HAS_W=weight is not None,
                              NDIM=ndim, FINAL=True, BLOCK=BLOCK, num_warps=warps)
        return y
    part = torch.empty(P, dtype=torch.float32, device=dev)
    _partial_kernel[(P,)](ops[0], ops[1], w, part, n, *args, scale, HAS_W=weight is not None,
                          NDIM=ndim, FINAL=False, BLOCK=BLOCK, num_warps=warps)
    _final_kernel[(1,)](part, y, P, scale, BLOCK=triton.next_power_of_2(P), num_warps=4)
    return y
