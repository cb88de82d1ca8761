"""Math/sub.py variant whose wrapper names its result buffer `out` (out = torch.empty(...)),
shadowing the keyword-only parameter: a caller's out= tensor is never written, and the new tensor
is returned instead. Values, alpha, scalars and broadcasting are right. The description says a
given `out` is written and returned (and its value after the call is compared); kbx's
tensors_3_out case catches it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def sub_kernel(x_ptr, y_ptr, z_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
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
    a = a.contiguous()
    b = b.contiguous()
    out = torch.empty(a.shape, dtype=torch.float32, device=a.device)
    n = out.numel()
    if n > 0:
        sub_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, float(alpha), BLOCK_SIZE=1024)
    return out
