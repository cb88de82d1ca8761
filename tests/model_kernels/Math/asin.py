"""Math/asin.py: Cephes' single-precision asinf in float32 (an LLM would call
tl.extra.cuda.libdevice.asin here; Triton's CPU interpreter cannot run libdevice and tl.* has no
asin, so the kernel spells the formula out). For |x| <= 0.5, asin(x) = x + x z P(z) with z = x^2;
for |x| > 0.5, asin(|x|) = pi/2 - 2 asin(sqrt((1 - |x|) / 2)) by the same polynomial; the sign is
put back at the end. Max error about 2 float32 ulps. |x| > 1 makes (1 - |x|) / 2 negative, whose
sqrt is NaN, so out-of-domain elements give NaN; +-1 give +-pi/2. Empty inputs launch nothing.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _asin_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.abs(x)
    big = a > 0.5
    z = tl.where(big, 0.5 * (1.0 - a), a * a)
    s = tl.where(big, tl.sqrt(z), a)
    p = 4.2163199048e-2
    p = p * z + 2.4181311049e-2
    p = p * z + 4.5470025998e-2
    p = p * z + 7.4953002686e-2
    p = p * z + 1.6666752422e-1
    r = p * z * s + s
    r = tl.where(big, 1.5707963267948966 - 2.0 * r, r)
    r = tl.where(x < 0, -r, r)
    tl.store(y_ptr + offs, r, mask=mask)


def asin(input_tensor):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _asin_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input_tensor.shape)
