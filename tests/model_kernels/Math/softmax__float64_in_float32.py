"""Math/softmax.py variant: computes in float32 whatever the dtype, so softmax(x, dim,
dtype=torch.float64) returns float64 values with float32's accuracy (errors near 1e-8): the
common `.to(tl.float32)` after every load. kbx judges float64 results at rtol = atol = 1e-10
(the description asks for the softmax in dtype) and fails it on the public rows_2x3_as_float64
case; the public harness's 1e-5 passes it.

Otherwise as Math/softmax.py: the softmax dimension is moved last and made contiguous; one program
per row loads the whole row (BLOCK_SIZE = next power of two), subtracts the max, exponentiates and
divides by tl.sum.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    e = tl.where(mask, e, 0.0)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * N + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim, dtype=None):
    x = input if dtype is None else input.to(dtype)
    dim = dim % x.dim() if x.dim() > 0 else 0
    xt = x.transpose(dim, -1).contiguous() if x.dim() > 0 else x.reshape(1)
    N = xt.shape[-1]
    rows = xt.numel() // max(N, 1)
    y = torch.empty_like(xt)
    if xt.numel() > 0:
        _softmax_kernel[(rows,)](xt, y, N, BLOCK_SIZE=triton.next_power_of_2(N))
    if x.dim() == 0:
        return y.reshape(())
    return y.transpose(dim, -1)
