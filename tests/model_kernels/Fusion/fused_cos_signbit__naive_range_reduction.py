"""Fusion/fused_cos_signbit.py variant with a naive float32 range reduction in front of the
cosine ("keeps the fast hardware cos in its accurate range"): r = x - round(x / 2pi) * 2pi, all in
float32 with 2pi rounded to float32, then cos(r). The product k * 2pi is rounded to float32 and the
constant carries a 1.7e-7 error, so the absolute error of c grows like |x| * 3e-8: about 3e-4 at
|x| = 1e4, far beyond the float32 tolerance. The description asks for cos(input) for any float32
input, so a careful judge fails it. Up to |x| ~ 100 (the public cases, std 3 with x10 outliers)
the error stays below the tolerance; kbx's wide_range_4095 case (uniform on [-1e4, 1e4]) catches
it on the GPU and under the CPU interpreter alike, while tl.cos stays within 1e-7 there
(tune/trig_range.py; session 47 on an H100).

Otherwise as the correct kernel: one Triton kernel over the flattened input (made contiguous on
the host) computes c = cos(x) in float32 with tl.cos and the sign bit of c read from its bit
pattern (bitcast to int32, < 0), so -0.0 counts as negative; c is stored as float32 and the sign
into a torch.bool tensor of the same shape. Returns (c, s).
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _cos_signbit_kernel(x_ptr, c_ptr, s_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    k = tl.floor(x * 0.15915494309189535 + 0.5)
    r = x - k * 6.283185307179586
    c = tl.cos(r)
    sb = c.to(tl.int32, bitcast=True) < 0
    tl.store(c_ptr + offs, c, mask=mask)
    tl.store(s_ptr + offs, sb, mask=mask)


def fused_cos_signbit(input):
    x = input.contiguous()
    c = torch.empty(input.shape, dtype=torch.float32, device=input.device)
    s = torch.empty(input.shape, dtype=torch.bool, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _cos_signbit_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, c, s, n, BLOCK_SIZE=BLOCK_SIZE)
    return c, s
