"""Math/abs.py written as tl.where(x < 0, -x, x), the way many generated kernels do: for -0.0 the
test x < 0 is false and -0.0 comes back unchanged, where torch.abs clears the sign bit. Every
other value is right. kbx does not judge the sign of a zero result (the description says so, as
the public harness's allclose cannot tell -0.0 from +0.0 either), so this kernel is correct
under the task's contract.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def abs_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x < 0, -x, x)
    tl.store(y_ptr + offs, y, mask=mask)


def abs(input_tensor, out=None):  # noqa: A001
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        abs_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    y = y.view(input_tensor.shape)
    if out is not None:
        out.copy_(y)
        return out
    return y
