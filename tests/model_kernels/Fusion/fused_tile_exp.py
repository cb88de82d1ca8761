"""Fusion/fused_tile_exp.py: the input is made contiguous on the host (numel m); one Triton kernel
over the flattened (*dims, *input.shape) result stores exp(x[offs % m]) at every position (each
leading index repeats the whole input block, computed in float32). With a contiguous `out` of the
result's shape and dtype the kernel writes into it directly, else through a temporary copied into
it; `out` is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _tile_exp_kernel(x_ptr, o_ptr, n, m_in, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    msk = offs < n
    x = tl.load(x_ptr + offs % m_in, mask=msk, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, tl.exp(x).to(o_ptr.dtype.element_ty), mask=msk)


def fused_tile_exp(input, dims, *, out=None):
    if isinstance(dims, int):
        dims = (dims,)
    shape = tuple(dims) + tuple(input.shape)
    x = input.contiguous()
    direct = out is not None and out.is_contiguous() and out.dtype == input.dtype and tuple(out.shape) == shape
    res = out if direct else torch.empty(shape, dtype=input.dtype, device=input.device)
    n = res.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _tile_exp_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, res, n, x.numel(), BLOCK_SIZE=BLOCK_SIZE)
    if out is not None and not direct:
        out.copy_(res)
        return out
    return res
