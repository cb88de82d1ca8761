"""Fusion/fused_hstack_div.py: torch.hstack(tensors) / divisor (true, 'trunc' or 'floor'
division) without materialising the stack: each piece is divided straight into its slice of the
result (eager's hstack copies every piece into a new tensor, then div reads it back: 16 bytes
per float32 element of traffic against this kernel's 8).

Design: one launch per piece (two for the perf sweep, the same launch count as eager's cat + div).
Each launch is a flat 1-D grid over the piece (4096 elements and 8 warps per program from 1M
elements up, 1024 and 4 below) that reads the piece, the divisor's matching slice (a broadcast
view; a Python number is a kernel scalar) and writes the result's slice, every operand through
its own strides after the iteration space is collapsed (size-1 dims dropped, jointly contiguous
dims merged): the 1-D perf slices are contiguous and compile to 128-bit vector accesses, and 2-D
slices of the stacked result or a non-contiguous piece are addressed in place. Float division is
IEEE-rounded (div_rn); 'trunc' and 'floor' round that quotient; integer inputs with a rounding
mode divide exactly in int64 (magnitudes, then the sign, so no reliance on the hardware's
rounding of negative quotients), and true division of integers computes in float32 as torch does.
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
def _div_kernel(a_ptr, b_ptr, y_ptr, n, b_scalar, S1, S2, S3, as0, as1, as2, as3,
                bs0, bs1, bs2, bs3, ys0, ys1, ys2, ys3, B_IS_TENSOR: tl.constexpr,
                MODE: tl.constexpr, INT_MATH: tl.constexpr, NDIM: tl.constexpr,
                I64: tl.constexpr, BLOCK: tl.constexpr):
    ct = y_ptr.dtype.element_ty
    if not INT_MATH:
        if ct != tl.float64:
            ct = tl.float32
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + _strided(offs, S1, S2, S3, as0, as1, as2, as3, NDIM), mask=mask,
                other=1).to(ct)
    if B_IS_TENSOR:
        b = tl.load(b_ptr + _strided(offs, S1, S2, S3, bs0, bs1, bs2, bs3, NDIM), mask=mask,
                    other=1).to(ct)
    else:
        b = tl.zeros([BLOCK], ct) + b_scalar
    if INT_MATH:
        qa = tl.abs(a) // tl.abs(b)
        neg = (a < 0) != (b < 0)
        q = tl.where(neg, -qa, qa)
        if MODE == 2:
            q = tl.where(neg & (q * b != a), q - 1, q)
    else:
        q = tl.div_rn(a, b)
        if MODE == 1:
            q = tl.where(q < 0, tl.ceil(q), tl.floor(q))
        elif MODE == 2:
            q = tl.floor(q)
    tl.store(y_ptr + _strided(offs, S1, S2, S3, ys0, ys1, ys2, ys3, NDIM),
             q.to(y_ptr.dtype.element_ty), mask=mask)


def _launch(a, b, y, b_scalar, **meta):
    n = a.numel()
    if n == 0:
        return
    ops = [a, b if b is not None else a, y]
    plan = _plan(a.shape, ops)
    if plan is None:
        tmp = torch.empty(a.shape, dtype=y.dtype, device=y.device)
        _launch(a.contiguous(), b.contiguous() if b is not None else None, tmp, b_scalar, **meta)
        y.copy_(tmp)
        return
    sizes, st, ndim = plan
    BLOCK, warps = (4096, 8) if n >= (1 << 20) else (1024, 4)
    span = max(max(abs(s) * (d - 1) for s, d in zip(s_, sizes)) for s_ in st) + 1
    _div_kernel[(triton.cdiv(n, BLOCK),)](
        ops[0], ops[1], y, n, b_scalar, sizes[1], sizes[2], sizes[3], *st[0], *st[1], *st[2],
        B_IS_TENSOR=b is not None, NDIM=ndim, I64=max(n, span) + BLOCK >= 2**31, BLOCK=BLOCK,
        num_warps=warps, **meta)


def fused_hstack_div(tensors, divisor, *, rounding_mode=None, out=None):
    if rounding_mode not in (None, 'trunc', 'floor'):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found {rounding_mode!r}")
    pieces = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    if not pieces:
        raise RuntimeError("hstack expects a non-empty TensorList")
    cat_dim = 0 if pieces[0].dim() == 1 else 1
    first = pieces[0]
    for t in pieces[1:]:
        if t.dim() != first.dim() or any(t.shape[d] != first.shape[d]
                                         for d in range(first.dim()) if d != cat_dim):
            raise RuntimeError(f"hstack: sizes of tensors must match except in dimension "
                               f"{cat_dim}; got {tuple(first.shape)} and {tuple(t.shape)}")
    cat_dtype = first.dtype
    for t in pieces[1:]:
        cat_dtype = torch.promote_types(cat_dtype, t.dtype)
    shape = list(first.shape)
    shape[cat_dim] = 0
    for t in pieces:
        shape[cat_dim] += t.shape[cat_dim]
    b_is_tensor = isinstance(divisor, torch.Tensor)
    dtype = torch.result_type(torch.empty(1, dtype=cat_dtype, device="meta"), divisor)
    int_math = not dtype.is_floating_point and rounding_mode is not None
    if rounding_mode is None and not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    y = torch.empty(shape, dtype=dtype, device=first.device)
    if b_is_tensor:
        b_full = divisor.expand(shape)
    mode = {None: 0, 'trunc': 1, 'floor': 2}[rounding_mode]
    b_scalar = 0 if b_is_tensor else (int(divisor) if int_math else float(divisor))
    off = 0
    for t in pieces:
        w = t.shape[cat_dim]
        b = b_full.narrow(cat_dim, off, w) if b_is_tensor else None
        _launch(t, b, y.narrow(cat_dim, off, w), b_scalar, MODE=mode, INT_MATH=int_math)
        off += w
    if out is not None:
        return out.copy_(y)
    return y
