"""Fusion/fused_index_select_eq.py variant that compares in float16 ("half the bandwidth"): both
the selected value and `other` are converted to float16 before the equality test. float16 has an
ulp of 0.5 at 1000, so float32 values 1000, 1000.0078125 and 1000.015625 all round to 1000 and
compare equal when they are not; large integers merge the same way. torch.eq compares the exact
values, so a careful judge fails it. The public cases use small integers (exact in float16); only
kbx's own float32 `levels` cases catch it.

Otherwise as the correct kernel: one Triton kernel over the flattened result. input is made
contiguous on the host and viewed as (outer, size(dim), inner); result position (o, i, k) loads
input[o, index[i], k] and compares it for equality with `other` -- a tensor broadcast to the result
shape on the host (both cast to torch.result_type(input, other) first), or a Python number passed as
a scalar of that type -- storing a bool. With `out` the result is copied into it and returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _index_select_eq_kernel(x_ptr, idx_ptr, y_ptr, o_ptr, n, L, S, INNER, yscalar,
                            Y_TENSOR: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    k = offs % INNER
    t = offs // INNER
    i = t % L
    o = t // L
    g = tl.load(idx_ptr + i, mask=m, other=0)
    v = tl.load(x_ptr + (o * S + g) * INNER + k, mask=m)
    if Y_TENSOR:
        y = tl.load(y_ptr + offs, mask=m)
    else:
        y = tl.zeros([BLOCK_SIZE], dtype=v.dtype) + yscalar
    tl.store(o_ptr + offs, v.to(tl.float16) == y.to(tl.float16), mask=m)


def fused_index_select_eq(input, dim, index, other, *, out=None):
    nd = max(input.dim(), 1)
    d = dim + nd if dim < 0 else dim
    shape = list(input.shape) if input.dim() > 0 else [1]
    S = shape[d]
    L = index.numel()
    outer = 1
    for s in shape[:d]:
        outer *= s
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    rshape = shape[:d] + [L] + shape[d + 1:]
    cdtype = torch.result_type(input, other)
    x = input.to(cdtype).contiguous()
    idx = index.reshape(-1).contiguous()
    if isinstance(other, torch.Tensor):
        rshape_b = list(torch.broadcast_shapes(tuple(rshape), other.shape))
        if rshape_b != rshape:
            raise RuntimeError("other does not broadcast to the selected shape")
        y = other.to(cdtype).expand(rshape).contiguous()
        ys, yt = 0, True
    else:
        y = x
        ys = float(other) if cdtype.is_floating_point else int(other)
        yt = False
    res = torch.empty(rshape if input.dim() > 0 else [L], dtype=torch.bool, device=input.device)
    n = res.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _index_select_eq_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, idx, y, res, n, L, S, inner, ys,
                                                              Y_TENSOR=yt, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(res)
        return out
    return res
