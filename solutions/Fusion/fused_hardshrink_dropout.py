"""Fusion/fused_hardshrink_dropout.py: dropout then hardshrink in one pass, with the keep mask drawn
in registers by Triton's Philox generator (eager runs a dropout kernel that also writes a mask,
then a hardshrink kernel: three tensors written and two read; here one read, one write).

Design: flat 1-D grid over the output; each program owns BLOCK elements and runs Philox on
BLOCK / 4 counters: tl.randint4x returns four independent 32-bit words per counter, one per
quarter-block, so one Philox evaluation (10 rounds) serves four elements and every quarter is a
contiguous, coalesced 128-bit vector access (BLOCK = 4096 / 8 warps above 1M elements, 1024 / 4
below). keep = u >= p with u = (w >> 8) * 2^-24 uniform on [0, 1) (P(keep) = 1 - p to 2^-24);
kept values are x * (1 / (1 - p)), then hardshrink |v| > lambd. training=False or p = 0 is the
plain hardshrink (no random draw, exactly deterministic); p = 1 drops everything. The input is
read through its own strides after the iteration space is collapsed (size-1 dims dropped,
jointly contiguous dims merged), so non-contiguous inputs need no copy. inplace=True also writes
the dropout result back into `input`, as F.dropout(inplace=True) would. float32 math.

Seed: one 62-bit integer drawn on the host from the input device's default generator (a CUDA
generator gives its seed and Philox offset without a kernel; the offset advances by 4 per call and
both are mixed by splitmix64), so successive calls draw independent masks.
"""
# expect: ok
import torch
import triton
import triton.language as tl

_MASK64 = (1 << 64) - 1


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _draw_seed(device):
    """A fresh 63-bit Philox key from the default generator of `device`."""
    if device.type == "cuda":
        g = torch.cuda.default_generators[device.index if device.index is not None
                                          else torch.cuda.current_device()]
        offset = g.get_offset()
        g.set_offset(offset + 4)
        key = _splitmix64(g.initial_seed() ^ _splitmix64(offset))
    else:
        key = _splitmix64(int(torch.randint(0, 2**62, (1,))))
    return key & ((1 << 63) - 1)


def _plan(shape, tensors):
    """Collapse an iteration space: drop size-1 dims, merge dims that every operand walks
    contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or None when
    more than 4 dims remain."""
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
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous case.
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
def _quarter(x_ptr, y_ptr, offs, w, n, p, scale, lambd, S1, S2, S3, xs0, xs1, xs2, xs3,
             TRAIN: tl.constexpr, INPLACE: tl.constexpr, NDIM: tl.constexpr):
    mask = offs < n
    xo = _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM)
    x = tl.load(x_ptr + xo, mask=mask, other=0.0).to(tl.float32)
    if TRAIN:
        u = (w.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * 5.960464477539063e-08
        x = tl.where(u >= p, x * scale, 0.0)
        if INPLACE:
            tl.store(x_ptr + xo, x.to(x_ptr.dtype.element_ty), mask=mask)
    y = tl.where(tl.abs(x) > lambd, x, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _hardshrink_dropout_kernel(x_ptr, y_ptr, n, seed, p, scale, lambd, S1, S2, S3,
                               xs0, xs1, xs2, xs3, TRAIN: tl.constexpr, INPLACE: tl.constexpr,
                               NDIM: tl.constexpr, I64: tl.constexpr, BLOCK: tl.constexpr):
    Q: tl.constexpr = BLOCK // 4
    pid = tl.program_id(0)
    ctr = pid * Q + tl.arange(0, Q)
    if TRAIN:
        w0, w1, w2, w3 = tl.randint4x(seed, ctr)
    else:
        w0 = ctr
        w1 = ctr
        w2 = ctr
        w3 = ctr
    if I64:
        pid = pid.to(tl.int64)
    base = pid * BLOCK + tl.arange(0, Q)
    _quarter(x_ptr, y_ptr, base, w0, n, p, scale, lambd, S1, S2, S3, xs0, xs1, xs2, xs3,
             TRAIN, INPLACE, NDIM)
    _quarter(x_ptr, y_ptr, base + Q, w1, n, p, scale, lambd, S1, S2, S3, xs0, xs1, xs2, xs3,
             TRAIN, INPLACE, NDIM)
    _quarter(x_ptr, y_ptr, base + 2 * Q, w2, n, p, scale, lambd, S1, S2, S3, xs0, xs1, xs2, xs3,
             TRAIN, INPLACE, NDIM)
    _quarter(x_ptr, y_ptr, base + 3 * Q, w3, n, p, scale, lambd, S1, S2, S3, xs0, xs1, xs2, xs3,
             TRAIN, INPLACE, NDIM)


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = y.numel()
    if n == 0:
        return y
    train = bool(training) and p > 0.0
    x = input
    plan = _plan(x.shape, [x])
    if plan is None:
        if inplace:
            raise ValueError("inplace dropout on a tensor of more than 4 non-mergeable dims")
        x = x.contiguous()
        plan = _plan(x.shape, [x])
    sizes, st, ndim = plan
    seed = _draw_seed(input.device) if train else 0
    scale = 1.0 / (1.0 - p) if p < 1.0 else 0.0
    big = n >= (1 << 20)
    BLOCK, warps = (4096, 8) if big else (1024, 4)
    span = max(abs(s) * (d - 1) for s, d in zip(st[0], sizes)) + 1
    i64 = max(n, span) + BLOCK >= 2**31
    _hardshrink_dropout_kernel[(triton.cdiv(n, BLOCK),)](
        x, y, n, seed, float(p), scale, float(lambd), sizes[1], sizes[2], sizes[3], *st[0],
        TRAIN=train, INPLACE=bool(inplace) and train, NDIM=ndim, I64=i64, BLOCK=BLOCK,
        num_warps=warps)
    return y
