"""Math/sub.py: a Python-number `other` becomes a 0-d float32 tensor; both operands are broadcast
with torch.broadcast_tensors and made contiguous, and one kernel computes x - alpha * y in
float32 (keyword-only alpha, int or float, passed as a float). A given `out` gets the result
copied in and is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _sub_kernel(x_ptr, y_ptr, z_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x - alpha * y, mask=mask)


def sub(input, other, *, alpha=1, out=None):
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=torch.float32, device=input.device)
    a, b = torch.broadcast_tensors(input, other)
    a = a.to(torch.float32).contiguous()
    b = b.to(torch.float32).contiguous()
    z = torch.empty(a.shape, dtype=torch.float32, device=a.device)
    n = z.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sub_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, z, n, float(alpha), BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(z)
        return out
    return z
