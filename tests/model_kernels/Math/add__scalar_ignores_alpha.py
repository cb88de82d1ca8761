"""Math/add.py variant with a separate fast path for a Python-number `other` (input + c in one
kernel, no second tensor to load) that forgets alpha: add(x, 2.0, alpha=0.5) returns x + 2.0
instead of x + 1.0. The tensor path scales by alpha and broadcasts correctly. The description
says alpha scales `other` whether it is a tensor or a Python number; kbx's
scalar_other_3_alpha0_5 case catches it.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x + alpha * y, mask=mask)


@triton.jit
def add_scalar_kernel(x_ptr, z_ptr, n, c, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x + c, mask=mask)


def add(input, other, alpha=1, out=None):
    if not torch.is_tensor(other):
        x = input.contiguous()
        z = torch.empty_like(x)
        n = z.numel()
        if n > 0:
            add_scalar_kernel[(triton.cdiv(n, 1024),)](x, z, n, float(other), BLOCK_SIZE=1024)
    else:
        a, b = torch.broadcast_tensors(input, other)
        a = a.contiguous()
        b = b.contiguous()
        z = torch.empty(a.shape, dtype=torch.float32, device=a.device)
        n = z.numel()
        if n > 0:
            add_kernel[(triton.cdiv(n, 1024),)](a, b, z, n, float(alpha), BLOCK_SIZE=1024)
    if out is not None:
        out.copy_(z)
        return out
    return z
