"""Math/mul.py: the result dtype is torch.result_type(input, other) (PyTorch promotion, Python
numbers as weak scalars); a Python-number operand becomes a 0-d tensor of that dtype, both are
broadcast (torch.broadcast_tensors), converted to the result dtype and made contiguous. int64 and
float32 go through one elementwise product kernel (int64 wraps as torch does); complex64 goes
through torch.view_as_real and a kernel that loads the (re, im) pairs and writes
(ac - bd) + (ad + bc)i. `out` gets the result copied in and is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(c_ptr + offs, a * b, mask=mask)


@triton.jit
def _cmul_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr):
    # a_ptr, b_ptr, c_ptr: interleaved float32 (re, im) pairs, n complex elements
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    ar = tl.load(a_ptr + 2 * offs, mask=mask, other=0.0)
    ai = tl.load(a_ptr + 2 * offs + 1, mask=mask, other=0.0)
    br = tl.load(b_ptr + 2 * offs, mask=mask, other=0.0)
    bi = tl.load(b_ptr + 2 * offs + 1, mask=mask, other=0.0)
    tl.store(c_ptr + 2 * offs, ar * br - ai * bi, mask=mask)
    tl.store(c_ptr + 2 * offs + 1, ar * bi + ai * br, mask=mask)


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
    n = c.numel()
    BLOCK_SIZE = 1024
    if n > 0:
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        if dtype.is_complex:
            if dtype != torch.complex64:
                raise NotImplementedError(f"mul: unsupported dtype {dtype}")
            _cmul_kernel[grid](torch.view_as_real(a), torch.view_as_real(b), torch.view_as_real(c),
                               n, BLOCK_SIZE=BLOCK_SIZE)
        else:
            _mul_kernel[grid](a, b, c, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(c)
        return out
    return c
