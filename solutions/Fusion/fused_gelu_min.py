"""Fusion/fused_gelu_min.py: GELU then min, never materialising the GELU tensor (eager writes and
re-reads the full GELU result: 2 extra HBM passes on the perf vectors).

Design, dim=None (the perf path): a persistent grid of at most 4 x 132 programs, each streaming
BLOCK = 4096 elements per step (8 warps, 128-bit loads) through GELU into a register-resident
running minimum, then one partial per program; a second one-program launch reduces the partials.
NaN is tracked separately and propagated like torch.min. With `dim`: the reduced dim becomes the
column axis of [BLOCK_M, BLOCK_N] tiles addressed through strides (other dims collapsed into
rows, no transpose copy); each row keeps a running (min, first index) pair across column chunks.
GELU is computed in float32 (erf or tanh form, tanh as 1 - 2 / (exp(2u) + 1)).
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
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (2.0 - 2.0 / (tl.exp(2.0 * u) + 1.0))
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _min_partial_kernel(x_ptr, part_ptr, nan_ptr, n, S1, S2, S3, s0, s1, s2, s3,
                        TANH: tl.constexpr, NDIM: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.full([BLOCK], float("inf"), tl.float32)
    nan = tl.zeros([BLOCK], tl.int32)
    for start in range(pid * BLOCK, n, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + _strided(offs, S1, S2, S3, s0, s1, s2, s3, NDIM), mask=mask,
                    other=float("inf")).to(tl.float32)
        g = _gelu(x, TANH)
        g = tl.where(mask, g, float("inf"))
        nan = nan | (g != g).to(tl.int32)
        acc = tl.minimum(acc, tl.where(g != g, float("inf"), g))
    tl.store(part_ptr + pid, tl.min(acc, axis=0))
    tl.store(nan_ptr + pid, tl.max(nan, axis=0))


@triton.jit
def _min_final_kernel(part_ptr, nan_ptr, y_ptr, P, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < P
    p = tl.load(part_ptr + offs, mask=mask, other=float("inf"))
    has_nan = tl.max(tl.load(nan_ptr + offs, mask=mask, other=0), axis=0)
    r = tl.min(p, axis=0)
    r = tl.where(has_nan > 0, float("nan"), r)
    tl.store(y_ptr, r)


@triton.jit
def _min_dim_kernel(x_ptr, v_ptr, i_ptr, M, N, S1, S2, S3, s0, s1, s2, s3, sn,
                    TANH: tl.constexpr, NDIM: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    xrow = _strided(rows, S1, S2, S3, s0, s1, s2, s3, NDIM)
    cols = tl.arange(0, BLOCK_N)
    best = tl.full([BLOCK_M], float("inf"), tl.float32)
    best_i = tl.zeros([BLOCK_M], tl.int64)
    for start in range(0, N, BLOCK_N):
        c = start + cols
        mask = rmask[:, None] & (c[None, :] < N)
        x = tl.load(x_ptr + xrow[:, None] + c[None, :] * sn, mask=mask, other=0.0).to(tl.float32)
        g = tl.where(mask, _gelu(x, TANH), float("inf"))
        cmin = tl.min(g, axis=1)
        # first column in this chunk holding the chunk minimum
        cidx = tl.min(tl.where(g == cmin[:, None], c[None, :], 2147483647), axis=1)
        take = cmin < best
        best_i = tl.where(take, cidx.to(tl.int64), best_i)
        best = tl.where(take, cmin, best)
    tl.store(v_ptr + rows, best, mask=rmask)
    tl.store(i_ptr + rows, best_i, mask=rmask)


def fused_gelu_min(input, approximate='none', dim=None, keepdim=False, out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    tanh = approximate == 'tanh'
    dtype = input.dtype
    if dim is None:
        n = input.numel()
        if n == 0:
            raise RuntimeError("min(): expected a non-empty input")
        plan = _plan(input.shape, [input])
        x = input
        if plan is None:
            x = input.contiguous()
            plan = _plan(input.shape, [x])
        sizes, st, ndim = plan
        BLOCK = 4096
        P = min(triton.cdiv(n, BLOCK), 4 * 132)
        part = torch.empty(P, dtype=torch.float32, device=input.device)
        nan = torch.empty(P, dtype=torch.int32, device=input.device)
        _min_partial_kernel[(P,)](x, part, nan, n, sizes[1], sizes[2], sizes[3], *st[0],
                                  TANH=tanh, NDIM=ndim, BLOCK=BLOCK, num_warps=8)
        y = torch.empty((), dtype=torch.float32, device=input.device)
        _min_final_kernel[(1,)](part, nan, y, P, BLOCK=triton.next_power_of_2(P), num_warps=4)
        y = y.to(dtype)
        if out is not None:
            return out.copy_(y)
        return y
    x = input if input.dim() else input.reshape(1)
    d = dim % x.dim()
    N = x.shape[d]
    xm = x.movedim(d, -1)
    outer = xm.shape[:-1]
    M = xm.numel() // N if N else 0
    vals = torch.empty(outer, dtype=torch.float32, device=input.device)
    idx = torch.empty(outer, dtype=torch.int64, device=input.device)
    if M:
        plan = _plan(outer, [xm[..., 0]])
        if plan is None:
            xm = xm.contiguous()
            plan = _plan(outer, [xm[..., 0]])
        sizes, st, ndim = plan
        BLOCK_N = min(triton.next_power_of_2(N), 2048)
        BLOCK_M = max(1, min(triton.next_power_of_2(M), 2048 // BLOCK_N))
        _min_dim_kernel[(triton.cdiv(M, BLOCK_M),)](
            xm, vals, idx, M, N, sizes[1], sizes[2], sizes[3], *st[0], xm.stride(-1),
            TANH=tanh, NDIM=ndim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    vals = vals.to(dtype)
    if keepdim:
        vals, idx = vals.unsqueeze(d), idx.unsqueeze(d)
    if input.dim() == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    if out is not None:
        out[0].copy_(vals)
        out[1].copy_(idx)
        return out[0], out[1]
    return vals, idx
