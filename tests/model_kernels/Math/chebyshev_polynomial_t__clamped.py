"""Math/chebyshev_polynomial_t.py variant that clamps the input to [-1, 1] before the recurrence
("the polynomials are defined on [-1, 1]"): outside it T_n(x) grows like (2|x|)^n / 2, but this
returns T_n(+-1) = (+-1)^n. The x10 outliers of the public outlier cases leave [-1, 1].
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _cheb_t_kernel(x_ptr, y_ptr, n_elem, degree, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elem
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.minimum(tl.maximum(x, -1.0), 1.0)  # T_n lives on [-1, 1]
    t_prev = tl.full(x.shape, 1.0, tl.float32)
    t_cur = x
    for _ in range(1, degree):
        t_next = 2.0 * x * t_cur - t_prev
        t_prev = t_cur
        t_cur = t_next
    y = tl.where(degree == 0, t_prev, t_cur)
    tl.store(y_ptr + offs, y, mask=mask)


def chebyshev_polynomial_t(input, n, out=None):
    n = int(n)
    x = input.contiguous()
    y = torch.empty_like(x)
    numel = x.numel()
    if n < 0:
        y.zero_()  # T_n for negative n: torch returns 0
    elif numel > 0:
        BLOCK_SIZE = 1024
        _cheb_t_kernel[(triton.cdiv(numel, BLOCK_SIZE),)](x, y, numel, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(y)
        return out
    return y
