"""Fusion/fused_masked_select_add_gelu.py variant that treats a tensor `other` as a scalar: the
kernel loads other[0] for every selected element instead of other broadcast to [k]. The
description allows `other` to be any tensor broadcastable to [k], so with a [k]-shaped `other`
every element but the first gets the wrong addend and a careful judge fails it. The cases pass
`other` only as a Python number or a one-element tensor, where other[0] is right.

Otherwise as the correct kernel: input and mask are broadcast to their common shape and
made contiguous (host glue). A first Triton kernel counts the True mask elements of each
1024-element block; the host takes the exclusive prefix sum of these counts (one entry per block)
and the total k; a second Triton kernel gives each selected element its output position, block
offset + tl.cumsum of the block's mask - 1 (row-major order, as torch.masked_select), and writes
GELU(x + alpha * other) there (erf form for 'none', tanh form for 'tanh'), where `other` is a
Python number or a tensor broadcast to [k] on the host. Returns float32 [k]; with `out` it is
resized to [k] if needed, filled and returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(m_ptr, cnt_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = tl.load(m_ptr + offs, mask=offs < n, other=0).to(tl.int32)
    tl.store(cnt_ptr + pid, tl.sum(m, axis=0))


@triton.jit
def _select_add_gelu_kernel(x_ptr, m_ptr, base_ptr, y_ptr, o_ptr, n, alpha, yscalar,
                            Y_TENSOR: tl.constexpr, APPROX_TANH: tl.constexpr,
                            BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inb = offs < n
    m = tl.load(m_ptr + offs, mask=inb, other=0).to(tl.int32)
    pos = tl.load(base_ptr + pid) + tl.cumsum(m, axis=0) - 1
    sel = inb & (m != 0)
    x = tl.load(x_ptr + offs, mask=sel, other=0.0)
    if Y_TENSOR:
        y = tl.load(y_ptr + pos * 0, mask=sel, other=0.0)
    else:
        y = tl.zeros([BLOCK_SIZE], dtype=tl.float32) + yscalar
    s = x + alpha * y
    if APPROX_TANH:
        z = 0.7978845608028654 * (s + 0.044715 * s * s * s)
        t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
        g = 0.5 * s * (1.0 + t)
    else:
        g = 0.5 * s * (1.0 + tl.math.erf(s * 0.7071067811865476))
    tl.store(o_ptr + pos, g, mask=sel)


def fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    x = input.to(torch.float32).expand(shape).contiguous()
    m = mask.expand(shape).contiguous().to(torch.int8)
    n = x.numel()
    BLOCK_SIZE = 1024
    nb = max(triton.cdiv(n, BLOCK_SIZE), 1)
    cnt = torch.zeros(nb, dtype=torch.int32, device=x.device)
    if n > 0:
        _count_kernel[(nb,)](m, cnt, n, BLOCK_SIZE=BLOCK_SIZE)
    base = (torch.cumsum(cnt, 0) - cnt).to(torch.int32)
    k = int(cnt.sum().item())
    res = torch.empty(k, dtype=torch.float32, device=x.device)
    if isinstance(other, torch.Tensor):
        y = other.to(torch.float32).reshape(-1)[:1].contiguous()
        ys, yt = 0.0, True
    else:
        y, ys, yt = res, float(other), False
    if k > 0:
        _select_add_gelu_kernel[(nb,)](x, m, base, y, res, n, float(alpha), ys, Y_TENSOR=yt,
                                       APPROX_TANH=approximate == 'tanh', BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        if out.shape != res.shape:
            out.resize_(res.shape)
        out.copy_(res)
        return out
    return res
