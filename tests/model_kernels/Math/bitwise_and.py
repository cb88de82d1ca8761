"""Math/bitwise_and.py: torch.broadcast_tensors (a 0-d or Python-int `other` becomes a tensor
first), both made contiguous, one elementwise kernel computing a & b in the inputs' dtype (int32
two's complement; bool as int1, i.e. logical and). `out` gets the result copied in.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _and_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(y_ptr + offs, a & b, mask=mask)


def bitwise_and(input, other, out=None):
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=input.dtype, device=input.device)
    dtype = torch.result_type(input, other)
    a, b = torch.broadcast_tensors(input.to(dtype), other.to(dtype))
    a = a.contiguous()
    b = b.contiguous()
    y = torch.empty(a.shape, dtype=dtype, device=a.device)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _and_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, y, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
