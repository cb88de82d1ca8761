"""Math/pow.py variant that computes every power as exp(y * log(x)): negative bases give NaN even for
integer exponents (randn ** 3.0 and randn ** 2.0, public calls, are about half negative).
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _pow_kernel(x_ptr, e_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    e = tl.load(e_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    y = tl.exp(e * tl.log(x))
    tl.store(y_ptr + offs, y, mask=mask)


def pow(input_tensor, exponent, out=None):
    if not torch.is_tensor(exponent):
        exponent = torch.tensor(float(exponent), dtype=torch.float32, device=input_tensor.device)
    x, e = torch.broadcast_tensors(input_tensor, exponent)
    x = x.to(torch.float32).contiguous()
    e = e.to(torch.float32).contiguous()
    y = torch.empty_like(x)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _pow_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, e, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
