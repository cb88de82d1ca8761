"""Fusion/fused_relu_sqrt.py: one Triton kernel over a flat contiguous buffer computes
sqrt(max(x, 0)) in the buffer's dtype (float32 or float64; any other dtype is first converted to
float32 on the host, as the description asks). inplace=True on a float32/float64 input writes the
result into `input` itself -- directly when it is contiguous, else through a contiguous temporary
copied back with input.copy_ -- and returns `input`; for other dtypes it works on the converted
copy and returns that. Otherwise a new tensor is returned, or with `out` the result is copied into
`out`, which is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_sqrt_kernel(x_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    r = tl.sqrt(tl.maximum(x, 0.0))
    tl.store(o_ptr + offs, r, mask=m)


def _launch(src, dst):
    n = src.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _relu_sqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](src, dst, n, BLOCK_SIZE=BLOCK_SIZE)


def fused_relu_sqrt(input, inplace=False, out=None):
    x = input if input.dtype in (torch.float32, torch.float64) else input.to(torch.float32)
    if inplace:
        if x.is_contiguous():
            _launch(x, x)
        else:
            tmp = x.contiguous()
            _launch(tmp, tmp)
            x.copy_(tmp)
        return x
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    _launch(xc, res)
    if out is not None:
        out.copy_(res)
        return out
    return res
