"""Math/asin.py variant using the "fast asin" that graphics code and many generated kernels copy
(NVIDIA Cg's asin, Abramowitz & Stegun 4.4.45): asin(|x|) = pi/2 - sqrt(1 - |x|) *
(1.5707288 - 0.2121144 |x| + 0.0742610 |x|^2 - 0.0187293 |x|^3), sign restored after. Domain
handling is right (sqrt of a negative gives NaN beyond +-1, +-1 give +-pi/2), but the cubic is
only good to ~6.8e-5 absolute (at x = 0 it returns 6.75e-5, not 0): about 70% of uniform [-1, 1)
inputs miss the float32 tolerance rtol = atol = 1e-5 that a float32 asin is held to.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    a = tl.abs(x)
    ret = -0.0187293 * a + 0.0742610
    ret = ret * a - 0.2121144
    ret = ret * a + 1.5707288
    ret = 1.5707963267948966 - tl.sqrt(1.0 - a) * ret
    y = tl.where(x < 0, -ret, ret)
    tl.store(y_ptr + offs, y, mask=mask)


def asin(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        asin_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    return y.view(input_tensor.shape)
