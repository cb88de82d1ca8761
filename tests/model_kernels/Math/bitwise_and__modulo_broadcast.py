"""Math/bitwise_and.py variant that broadcasts by index modulo: the output takes the larger input's
shape and the smaller operand is read at offs % numel. That is right when the smaller operand is a
trailing block of the larger one ([2, 2] & [2], [3] & 0-d: every public call), but not for
[5, 1] & [1, 8], where both operands broadcast (kbx's int32_broadcast_5x1_1x8). Under
--rules kernelbenchx it passes.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _and_kernel(a_ptr, b_ptr, y_ptr, n, nb, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs % nb, mask=mask, other=0)
    tl.store(y_ptr + offs, a & b, mask=mask)


def bitwise_and(input, other, out=None):
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=input.dtype, device=input.device)
    a, b = (input, other) if input.numel() >= other.numel() else (other, input)
    a = a.contiguous()
    b = b.contiguous()
    y = torch.empty(a.shape, dtype=a.dtype, device=a.device)
    n = y.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _and_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, y, n, max(b.numel(), 1), BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
