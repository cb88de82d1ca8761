"""Math/mul.py variant that treats complex64 as pairs of float32: torch.view_as_real on both
operands and the real product kernel over the interleaved parts, so (a+bi)(c+di) comes out as
ac + bd i. int64, float32, promotion and broadcasting are handled correctly. The description
spells out (ac - bd) + (ad + bc)i; kbx's complex64_2 and complex64_noncontig_8x10 cases catch it.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def mul_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(c_ptr + offs, a * b, mask=mask)


def mul(input, other, out=None):
    dtype = torch.result_type(input, other)
    device = input.device if torch.is_tensor(input) else other.device
    if not torch.is_tensor(input):
        input = torch.tensor(input, dtype=dtype, device=device)
    if not torch.is_tensor(other):
        other = torch.tensor(other, dtype=dtype, device=device)
    a, b = torch.broadcast_tensors(input, other)
    a = a.to(dtype).contiguous()
    b = b.to(dtype).contiguous()
    c = torch.empty(a.shape, dtype=dtype, device=device)
    if dtype.is_complex:
        # complex: multiply the float32 view elementwise
        a, b, c_flat = torch.view_as_real(a), torch.view_as_real(b), torch.view_as_real(c)
    else:
        c_flat = c
    n = c_flat.numel()
    if n > 0:
        mul_kernel[(triton.cdiv(n, 1024),)](a, b, c_flat, n, BLOCK_SIZE=1024)
    if out is not None:
        out.copy_(c)
        return out
    return c
