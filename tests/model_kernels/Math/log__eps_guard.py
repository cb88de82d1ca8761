"""Math/log.py variant with the "numerical stability" guard generated kernels often add:
tl.log(x + 1e-8). For positive inputs of 1e-3 and up the shift moves the log by at most 1e-5,
inside the tolerance, but log(0) comes out as log(1e-8) = -18.42 instead of
-inf, which the description promises (ln(0) = -inf); kbx's nan_inf_zero_3 case (-1, 0, 1) catches
it. (Negatives still give NaN.)
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def log_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.log(x + 1e-8)
    tl.store(y_ptr + offs, y, mask=mask)


def log(input, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        log_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    y = y.view(input.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
