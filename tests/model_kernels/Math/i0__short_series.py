"""Math/i0.py variant that uses the defining power series I0(x) = sum_k (x^2/4)^k / (k!)^2 for every
x, truncated at 12 terms (float32, terms by their ratio (x^2/4) / k^2). That is exact to float32
for |x| up to about 8, but the dropped tail grows quickly beyond: 4e-5 relative at |x| = 9.5,
1.4e-4 at 10, several percent at 15. randn * 3 puts about 0.3% of its draws above 9 (a dozen per
64 x 64 case), and the x10 outliers land far beyond.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _i0_kernel(x_ptr, y_ptr, n, NTERMS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    q = 0.25 * x * x
    term = tl.full(x.shape, 1.0, tl.float32)
    acc = term
    for k in tl.static_range(1, NTERMS):
        term = term * q / (k * k)
        acc += term
    tl.store(y_ptr + offs, acc, mask=mask)


def i0(input_tensor, out=None):
    x = input_tensor.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _i0_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, NTERMS=12, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
