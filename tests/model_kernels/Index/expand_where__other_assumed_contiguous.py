"""Index/expand_where.py variant: `other` is indexed as if it were contiguous (b * N + n)
instead of through its strides, a kernel written for the usual freshly-allocated `other`. For a
non-contiguous `other` (a strided view) the wrong elements are selected in every row whose
cond is false. The description only says `other` has the target shape, which allows views, and
the reference handles them; a careful judge fails it. Only kbx's own noncontig_other case uses a
non-contiguous `other`.

Otherwise the kernel is Index/expand_where.py: target_sizes is resolved like Tensor.expand (-1 keeps the input's
size), and the three operands are broadcast to the [B, N] target as zero-copy views whose
strides (0 along broadcast dims) go to one Triton kernel; each program handles a BLOCK of the
flattened output, loads cond[b, n], input[b, n] and other[b, n] through those strides and writes
where(cond, input, other) to a new contiguous float32 tensor.
"""
# expect-kernelbenchx: ok
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _expand_where_kernel(x_ptr, c_ptr, o_ptr, y_ptr, total, N, xs0, xs1, cs0, cs1, os0, os1,
                         BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    b = offs // N
    n = offs % N
    c = tl.load(c_ptr + b * cs0 + n * cs1, mask=mask, other=0)
    x = tl.load(x_ptr + b * xs0 + n * xs1, mask=mask, other=0.0)
    o = tl.load(o_ptr + b * os0 + n * os1, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(c != 0, x, o), mask=mask)


def expand_where(input, target_sizes, cond, other):
    sizes = list(target_sizes)
    lead = len(sizes) - input.dim()
    shape = []
    for i, s in enumerate(sizes):
        if s == -1:
            shape.append(input.shape[i - lead])
        else:
            shape.append(int(s))
    if len(shape) == 1:
        shape2 = [1, shape[0]]
    else:
        shape2 = [int(torch.tensor(shape[:-1]).prod().item()), shape[-1]]
    x = input.expand(*shape)
    c = cond.expand(*shape)
    o = other.expand(*shape)
    if len(shape) != 2:
        x, c, o = (t.reshape(shape2) for t in (x, c, o))
    c = c.view(torch.uint8) if c.dtype == torch.bool else c
    B, N = shape2
    out = torch.empty(shape2, dtype=torch.float32, device=input.device)
    total = out.numel()
    if total > 0:
        BLOCK = 1024
        _expand_where_kernel[(triton.cdiv(total, BLOCK),)](
            x, c, o, out, total, N, x.stride(0), x.stride(1), c.stride(0), c.stride(1),
            N, 1, BLOCK=BLOCK)
    return out.view(shape)
