"""Math/div.py, weaker variant: treats rounding_mode='floor' like 'trunc' (rounds toward zero),
which is wrong for every negative non-integer quotient.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
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
    mode = {None: 0, "trunc": 1, "floor": 1}[rounding_mode]
    if n > 0:
        _div_kernel[(triton.cdiv(n, 1024),)](a, b, y, n, MODE=mode, BLOCK_SIZE=1024)
    if out is not None:
        out.copy_(y)
        return out
    return y
