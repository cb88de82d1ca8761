"""Math/cos.py variant that reduces the argument itself before tl.cos ("keep the cosine in
[-pi, pi]"): r = x - floor(x / 2pi + 0.5) * 2pi computed in float32, with 2pi rounded to float32.
The rounded constant is off by 1.7e-7, so r drifts from the true reduced argument by about
|x| * 3e-8: harmless for the public inputs (|x| below about 40), but about 3e-4 at |x| = 1e4, far
beyond the float32 tolerance. The description asks for cos(x) of any float32 x; kbx's
wide_range_4095 case (uniform on [-1e4, 1e4]) fails it, the public cases do not.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    k = tl.floor(x * 0.15915494309189535 + 0.5)
    r = x - k * 6.283185307179586
    tl.store(y_ptr + offs, tl.cos(r), mask=mask)


def cos(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _cos_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input_tensor.shape)
