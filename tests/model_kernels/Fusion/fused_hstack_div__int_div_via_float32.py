"""Fusion/fused_hstack_div.py variant that does integer 'trunc' / 'floor' division in float32: the
int64 operands are converted to float32, divided, truncated or floored and converted back. The
description says both modes keep the dtype, int64 staying int64, i.e. exact integer division; in
float32 the operands lose their low bits above 2^24 (e.g. (2^25 + 1) // 1 gives 2^25, and
(10^9 + 7) // 3 gives 333333344 instead of 333333335), so a careful judge fails it. Exact for the
small integers the cases draw (randint in [-50, 50)).

Otherwise as the correct kernel: one Triton kernel launch per piece copies the piece into its slice of
the stacked result and divides on the way (no separate concatenation pass). Pieces are made
contiguous and viewed as (outer, inner) -- outer = size(0) and the slice offset along dim 1 for
>= 2-D pieces, a single row along dim 0 for 1-D ones; a tensor divisor is broadcast to the stacked
shape on the host, a number is passed as a scalar. rounding_mode=None divides in float32 (integer
inputs give float32, as torch's true division); 'trunc' and 'floor' keep the dtype: for floats
trunc / floor of the float32 quotient, for integers exact integer arithmetic on |a| // |b| with the
sign applied afterwards (and one subtracted for an inexact negative floor quotient). With `out` the
result is copied into it and returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _hstack_div_kernel(x_ptr, d_ptr, o_ptr, n, inner_in, inner_out, col0, dscalar,
                       D_TENSOR: tl.constexpr, MODE: tl.constexpr, INT_DIV: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    r = offs // inner_in
    c = offs % inner_in
    oo = r * inner_out + col0 + c
    a = tl.load(x_ptr + offs, mask=m, other=0)
    if D_TENSOR:
        b = tl.load(d_ptr + oo, mask=m, other=1)
    else:
        b = tl.zeros([BLOCK_SIZE], dtype=a.dtype) + dscalar
    if INT_DIV:
        qf = a.to(tl.float32) / b.to(tl.float32)
        if MODE == 1:
            qf = tl.where(qf < 0, tl.ceil(qf), tl.floor(qf))
        else:
            qf = tl.floor(qf)
        tl.store(o_ptr + oo, qf.to(o_ptr.dtype.element_ty), mask=m)
    elif False:
        aa = tl.abs(a)
        ab = tl.abs(b)
        qa = aa // ab
        neg = (a < 0) != (b < 0)
        q = tl.where(neg, -qa, qa)
        if MODE == 2:
            q = tl.where(neg & (qa * ab != aa), q - 1, q)
        tl.store(o_ptr + oo, q.to(o_ptr.dtype.element_ty), mask=m)
    else:
        q = a.to(tl.float32) / b.to(tl.float32)
        if MODE == 1:
            q = tl.where(q < 0, tl.ceil(q), tl.floor(q))
        elif MODE == 2:
            q = tl.floor(q)
        tl.store(o_ptr + oo, q.to(o_ptr.dtype.element_ty), mask=m)


def fused_hstack_div(tensors, divisor, *, rounding_mode=None, out=None):
    if rounding_mode not in (None, 'trunc', 'floor'):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    tensors = list(tensors)
    if len(tensors) == 0:
        raise RuntimeError("hstack expects a non-empty TensorList")
    sdtype = tensors[0].dtype
    for t in tensors[1:]:
        sdtype = torch.promote_types(sdtype, t.dtype)
    one_d = tensors[0].dim() == 1
    cat_dim = 0 if one_d else 1
    shape = list(tensors[0].shape)
    shape[cat_dim] = sum(t.shape[cat_dim] for t in tensors)
    probe = torch.empty((), dtype=sdtype)
    rdtype = torch.result_type(probe, divisor)
    if rounding_mode is None and not rdtype.is_floating_point:
        rdtype = torch.get_default_dtype()
    dev = tensors[0].device
    res = torch.empty(shape, dtype=rdtype, device=dev)
    int_div = rounding_mode is not None and not rdtype.is_floating_point
    cdtype = rdtype if rounding_mode is not None else sdtype
    if isinstance(divisor, torch.Tensor):
        d = divisor.to(cdtype if int_div else torch.float32).expand(shape).contiguous()
        dscalar, d_tensor = 0, True
    else:
        d = res
        dscalar = int(divisor) if int_div else float(divisor)
        d_tensor = False
    inner_out = 1
    for s in shape[1:]:
        inner_out *= s
    if one_d:
        inner_out = shape[0]
    mode = {None: 0, 'trunc': 1, 'floor': 2}[rounding_mode]
    col = 0
    for t in tensors:
        x = t.to(cdtype if int_div else t.dtype).contiguous()
        n = x.numel()
        if one_d:
            inner_in, col0 = n, col
            col += n
        else:
            inner_in = n // t.shape[0] if t.shape[0] > 0 else 0
            col0 = col
            col += inner_in
        if n > 0:
            BLOCK_SIZE = 1024
            _hstack_div_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
                x, d, res, n, inner_in, inner_out, col0, dscalar, D_TENSOR=d_tensor, MODE=mode,
                INT_DIV=int_div, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(res)
        return out
    return res
