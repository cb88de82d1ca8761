"""Math/digamma.py variant that ignores strides: as digamma.py, but the input is passed to the
kernel as it is (no .contiguous()), and the kernel reads numel() consecutive elements from its data
pointer. A non-contiguous view (kbx's noncontig_8x33, every other element of a wider buffer) is read
as the wrong elements. Every public call passes a contiguous tensor, so this passes under
--rules kernelbenchx; kbx's default rules fail it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _digamma_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    PI = 3.141592653589793
    reflect = x < 0.5
    # pi * cot(pi * x) on the reduced argument r = x - round(x), |r| <= 0.5
    r = x - tl.floor(x + 0.5)
    refl = PI * tl.cos(PI * r) / tl.sin(PI * r)
    z = tl.where(reflect, 1.0 - x, x)
    acc = tl.zeros_like(z)
    for _ in tl.static_range(6):
        small = z < 6.0
        acc += tl.where(small, 1.0 / z, 0.0)
        z = tl.where(small, z + 1.0, z)
    inv = 1.0 / z
    inv2 = inv * inv
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))))
    psi = tl.log(z) - 0.5 * inv - series - acc
    psi = tl.where(reflect, psi - refl, psi)
    is_pole = (x <= 0.0) & (x == tl.floor(x))
    psi = tl.where(is_pole, float("nan"), psi)
    # +0 gives -inf, -0 gives +inf (the limits from each side)
    neg_zero = x.to(tl.int32, bitcast=True) < 0
    psi = tl.where(x == 0.0, tl.where(neg_zero, float("inf"), float("-inf")), psi)
    tl.store(y_ptr + offs, psi, mask=mask)


def digamma(input_tensor):
    x = input_tensor
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        _digamma_kernel[grid](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y
