"""Fusion/fused_add_gelu.py: GELU(input + alpha * other) in one pass: the scaled add and the GELU (erf or tanh form)
are fused, so each element is read once per operand and written once (eager runs two or three
kernels and round-trips the intermediate through HBM).

Design: a flat 1-D grid over the broadcast output, BLOCK elements per program (4096 with 8 warps
on big tensors: 16 fp32 per thread as 128-bit vector loads; 1024 with 4 warps below 1M elements so
small launches still fill the 132 SMs). Operands are addressed through their own strides after
the iteration space is collapsed (size-1 dims dropped, jointly contiguous dims merged), so the
perf shape (contiguous 1-D) compiles to plain vector loads, and broadcast rows / non-contiguous
views are read in place, with no .contiguous() copy. A Python-number `other` is a kernel scalar.
Math is float32 in registers (float16/bfloat16 inputs are upcast on load, rounded once on store);
tanh is 1 - 2 / (exp(2u) + 1), exact at the saturating ends. 64-bit offsets only when needed.
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
def _add_gelu_kernel(x_ptr, o_ptr, y_ptr, n, other_scalar, alpha, S1, S2, S3,
                     xs0, xs1, xs2, xs3, os0, os1, os2, os3,
                     OTHER_IS_TENSOR: tl.constexpr, TANH: tl.constexpr, NDIM: tl.constexpr,
                     I64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=mask,
                other=0.0).to(tl.float32)
    if OTHER_IS_TENSOR:
        o = tl.load(o_ptr + _strided(offs, S1, S2, S3, os0, os1, os2, os3, NDIM), mask=mask,
                    other=0.0).to(tl.float32)
    else:
        o = other_scalar
    r = x + alpha * o
    if TANH:
        u = 0.7978845608028654 * (r + 0.044715 * r * r * r)
        t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
        y = 0.5 * r * (1.0 + t)
    else:
        y = 0.5 * r * (1.0 + tl.math.erf(r * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def fused_add_gelu(input, other, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    other_is_tensor = isinstance(other, torch.Tensor)
    dtype = torch.result_type(input, other)
    shape = torch.broadcast_shapes(input.shape, other.shape) if other_is_tensor else input.shape
    ops = [input, other] if other_is_tensor else [input]
    plan = _plan(shape, ops)
    if plan is None:
        ops = [t.expand(shape).contiguous() for t in ops]
        plan = _plan(shape, ops)
    sizes, strides, ndim = plan
    if not other_is_tensor:
        strides.append([0, 0, 0, 0])
    y = torch.empty(shape, dtype=dtype, device=input.device)
    n = y.numel()
    if n:
        big = n >= (1 << 20)
        BLOCK, warps = (4096, 8) if big else (1024, 4)
        span = max(max(abs(s) * (d - 1) for s, d in zip(st, sizes)) for st in strides) + 1
        i64 = max(n, span) + BLOCK >= 2**31
        _add_gelu_kernel[(triton.cdiv(n, BLOCK),)](
            ops[0], ops[-1], y, n,
            0.0 if other_is_tensor else float(other), float(alpha), sizes[1], sizes[2], sizes[3],
            *strides[0], *strides[1], OTHER_IS_TENSOR=other_is_tensor,
            TANH=approximate == 'tanh', NDIM=ndim, I64=i64, BLOCK=BLOCK, num_warps=warps)
    if out is not None:
        return out.copy_(y)
    return y
