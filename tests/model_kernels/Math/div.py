"""Math/div.py: broadcast with torch.broadcast_tensors, one elementwise kernel; 'trunc' and
'floor' round the correctly rounded float32 quotient (tl.floor, trunc via floor of |q|), as most
generated kernels do. torch floors the exact quotient instead (Python's // semantics): where a / b
rounds up onto an integer (about 4 in 10^6 elements of the floor case's draws) this kernel is one
larger; kbx's canonical_div accepts that, so the verdict does not depend on the draw (before, about
0.1% of the draws of the floor case failed it).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _div_kernel(a_ptr, b_ptr, y_ptr, n, MODE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=1.0)
    q = a / b
    if MODE == 1:
        q = tl.where(q < 0, -tl.floor(-q), tl.floor(q))
    elif MODE == 2:
        q = tl.floor(q)
    tl.store(y_ptr + offs, q, mask=m)


def div(input, other, rounding_mode=None, out=None):
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=input.dtype, device=input.device)
    a, b = torch.broadcast_tensors(input, other)
    a = a.contiguous().to(torch.float32)
    b = b.contiguous().to(torch.float32)
    y = torch.empty_like(a)
    n = a.numel()
    mode = {None: 0, "trunc": 1, "floor": 2}[rounding_mode]
    if n > 0:
        _div_kernel[(triton.cdiv(n, 1024),)](a, b, y, n, MODE=mode, BLOCK_SIZE=1024)
    if out is not None:
        out.copy_(y)
        return out
    return y
